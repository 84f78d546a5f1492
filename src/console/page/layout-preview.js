// The mix layout's geometry for the users in the channel now, drawn small: the record form and the session's
// updateLayout. The regions come from the mix recorder's own layout function (src/media/mix/layout.ts), which the
// server hands to the page as an ES module, so the preview is the picture's geometry to the pixel.
import { layout as mixLayout } from './mix-layout.mjs';
import { html } from './ui.js';

/** Users a mix would draw, in join order: participants who publish something (the recorder publishes nothing). */
export function mixUsers(participants) {
  return [...(participants ?? [])]
    .filter((p) => p.tracks?.length)
    .sort((a, b) => (a.joinedAt ?? 0) - (b.joinedAt ?? 0))
    .map((p) => String(p.uid));
}

export function LayoutPreview({ layout, users, width, height }) {
  const canvas = { width: Number(width) || 1280, height: Number(height) || 720 };
  let regions = [];
  try {
    regions = mixLayout(Number(layout), canvas, users);
  } catch {
    // A half-typed size (0, a fraction) draws an empty canvas until it is whole again.
  }
  const w = 160;
  const k = w / canvas.width;
  const hgt = Math.round(canvas.height * k);
  return html`<svg width=${w} height=${hgt} viewBox=${`0 0 ${w} ${hgt}`} aria-label="layout preview" data-regions=${regions.length} style="background:#000;border-radius:6px">
    ${regions.map((r, i) => {
      const [x, y, rw, rh] = [r.rect.x * k, r.rect.y * k, r.rect.width * k, r.rect.height * k];
      return html`<g data-uid=${r.uid ?? ''}>
        <rect x=${x + 0.5} y=${y + 0.5} width=${Math.max(0, rw - 1)} height=${Math.max(0, rh - 1)} rx="2"
          fill=${r.uid === null ? 'none' : `hsl(${(i * 67) % 360} 55% 45%)`} stroke=${r.uid === null ? '#666' : 'none'} stroke-dasharray="3 2" />
        ${r.uid !== null && rw > 18 ? html`<text x=${x + 3} y=${y + 10} font-size="8" fill="#fff">${r.uid}</text>` : null}
      </g>`;
    })}
  </svg>`;
}
