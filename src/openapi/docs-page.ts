/**
 * GET /docs: a self-contained reference page that reads /openapi.json from this server and lists every operation
 * with its parameters, request body schema, responses and a curl line. No script or style loads from elsewhere.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>reeltime API reference</title>
<style>
  :root { color-scheme: light dark; --bg: #fff; --fg: #1b1d22; --muted: #5c6370; --line: #dde1e6; --card: #f6f8fa; --accent: #3557d4; }
  @media (prefers-color-scheme: dark) { :root { --bg: #121418; --fg: #e6e8eb; --muted: #9aa3ad; --line: #2a2f37; --card: #1a1e24; --accent: #8aa4ff; } }
  body { margin: 0; font: 15px/1.5 system-ui, sans-serif; background: var(--bg); color: var(--fg); display: grid; grid-template-columns: 280px 1fr; min-height: 100vh; }
  nav { border-right: 1px solid var(--line); padding: 16px; position: sticky; top: 0; height: 100vh; overflow: auto; box-sizing: border-box; }
  nav h2 { font-size: 12px; text-transform: uppercase; color: var(--muted); margin: 16px 0 4px; }
  nav a { display: block; color: var(--fg); text-decoration: none; padding: 2px 0; font-size: 14px; }
  nav a:hover { color: var(--accent); }
  main { padding: 24px 32px; max-width: 1000px; min-width: 0; }
  section { border: 1px solid var(--line); border-radius: 8px; margin: 16px 0; padding: 12px 16px; background: var(--card); }
  .method { font: 600 12px ui-monospace, monospace; padding: 2px 6px; border-radius: 4px; background: var(--accent); color: var(--bg); margin-right: 8px; text-transform: uppercase; }
  code, pre { font: 13px ui-monospace, monospace; }
  pre { overflow: auto; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px; max-height: 360px; }
  details summary { cursor: pointer; color: var(--muted); }
  table { border-collapse: collapse; } td { padding: 2px 12px 2px 0; vertical-align: top; }
  @media (max-width: 760px) { body { grid-template-columns: 1fr; } nav { position: static; height: auto; border-right: 0; border-bottom: 1px solid var(--line); } main { padding: 16px; } }
</style>
</head>
<body>
<nav id="nav"><strong>reeltime API</strong></nav>
<main id="main"><p>Loading <a href="/openapi.json">/openapi.json</a>…</p></main>
<script type="module">
const el = (tag, attrs = {}, ...kids) => { const e = document.createElement(tag); Object.assign(e, attrs); e.append(...kids); return e; };
const doc = await (await fetch('/openapi.json')).json();
const schemas = doc.components.schemas;
const deref = (s) => (s && s.$ref ? schemas[s.$ref.split('/').pop()] : s);
const pretty = (s) => JSON.stringify(s, null, 2);
const main = document.getElementById('main');
const nav = document.getElementById('nav');
main.replaceChildren(el('h1', { textContent: doc.info.title + ' ' + doc.info.version }), el('p', { textContent: doc.info.description }));
const byTag = new Map();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (method === 'parameters') continue;
    const tag = (op.tags || ['Other'])[0];
    if (!byTag.has(tag)) byTag.set(tag, []);
    byTag.get(tag).push({ path, method, op, shared: item.parameters || [] });
  }
}
for (const [tag, ops] of byTag) {
  nav.append(el('h2', { textContent: tag }));
  main.append(el('h2', { textContent: tag }));
  for (const { path, method, op, shared } of ops) {
    const id = op.operationId || method + path;
    nav.append(el('a', { href: '#' + id, textContent: op.summary || id }));
    const s = el('section', { id });
    s.append(el('div', {}, el('span', { className: 'method', textContent: method }), el('code', { textContent: path })));
    if (op.summary) s.append(el('p', { textContent: op.summary }));
    const params = [...shared, ...(op.parameters || [])];
    if (params.length) {
      const t = el('table');
      for (const p of params) t.append(el('tr', {}, el('td', {}, el('code', { textContent: p.name })), el('td', { textContent: p.in + (p.required ? ', required' : '') }), el('td', { textContent: p.description || '' })));
      s.append(el('h4', { textContent: 'Parameters' }), t);
    }
    const security = (op.security || []).map((r) => Object.keys(r)[0] || 'none').join(' or ');
    if (security) s.append(el('p', { textContent: 'Auth: ' + security }));
    const body = op.requestBody && op.requestBody.content;
    if (body) {
      for (const [type, media] of Object.entries(body)) {
        s.append(el('details', {}, el('summary', { textContent: 'Request body (' + type + ')' }), el('pre', { textContent: pretty(deref(media.schema)) })));
      }
    }
    for (const [status, r] of Object.entries(op.responses || {})) {
      const media = r.content && Object.values(r.content)[0];
      const schema = media && media.schema && (media.schema.anyOf ? { anyOf: media.schema.anyOf.map(deref) } : deref(media.schema));
      s.append(el('details', {}, el('summary', { textContent: status + ' ' + (r.description || '') }), el('pre', { textContent: schema ? pretty(schema) : '(no body)' })));
    }
    const auth = security.startsWith('basicAuth') ? ' -u "$CUSTOMER_ID:$CUSTOMER_SECRET"' : '';
    const json = body && body['application/json'] ? " -H 'content-type: application/json' -d @body.json" : '';
    s.append(el('pre', { className: 'curl', textContent: 'curl -X ' + method.toUpperCase() + auth + json + " '" + location.origin + path + "'" }));
    main.append(s);
  }
}
</script>
</body>
</html>
`;
