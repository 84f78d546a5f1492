// The mix layout's geometry for a number of users, drawn small: the record form and the session's updateLayout.
import { html } from './ui.js';

/** A small preview of the layout for the channel's current participants. */
export function LayoutPreview({ layout, count, width, height }) {
  const n = Math.max(1, count);
  const boxes = [];
  if (layout === 0) {
    boxes.push([0, 0, 1, 1]);
    for (let i = 1; i < n; i++) boxes.push([0.02 + ((i - 1) % 4) * 0.24, 0.72 - Math.floor((i - 1) / 4) * 0.26, 0.22, 0.24]);
  } else if (layout === 2) {
    boxes.push([0, 0, n > 1 ? 0.8 : 1, 1]);
    for (let i = 1; i < n; i++) boxes.push([0.8, (i - 1) * 0.25, 0.2, 0.25]);
  } else {
    const cols = Math.ceil(Math.sqrt(n));
    const rows = Math.ceil(n / cols);
    for (let i = 0; i < n; i++) boxes.push([(i % cols) / cols, Math.floor(i / cols) / rows, 1 / cols, 1 / rows]);
  }
  const w = 160;
  const hgt = Math.round((w * Number(height || 720)) / Number(width || 1280));
  return html`<svg width=${w} height=${hgt} viewBox=${`0 0 ${w} ${hgt}`} aria-label="layout preview" style="background:#000;border-radius:6px">
    ${boxes.map(([x, y, bw, bh], i) => html`<rect x=${x * w + 1} y=${y * hgt + 1} width=${bw * w - 2} height=${bh * hgt - 2}
      rx="3" fill=${`hsl(${(i * 67) % 360} 55% 45%)`} />`)}
  </svg>`;
}
