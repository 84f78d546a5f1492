// The console: sign-in, then Channels, Recordings, Ingress and Rules, all through the public HTTP APIs (docs/console.md).
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApi } from './api.js';
import { Channels } from './channels.js';
import { Ingress } from './ingress.js';
import { Recordings } from './recordings.js';
import { Rules } from './rules.js';
import { Session } from './session.js';
import { ErrorBody, html } from './ui.js';

const STORE_KEY = 'reeltime.console.credentials';

function SignIn({ settings, onSignIn }) {
  const dev = settings.devCredentials;
  const [form, setForm] = useState({
    appId: settings.appId,
    customerId: dev?.customerId ?? '',
    customerSecret: dev?.customerSecret ?? '',
  });
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // The sessions list checks the credentials and the app in one cheap call.
      await createApi(form).sessions({ limit: '1' });
      onSignIn(form);
    } catch (err) {
      setError(err instanceof ApiError ? err : { message: String(err) });
    } finally {
      setBusy(false);
    }
  };
  return html`<div class="signin card">
    <h1><span style="color:var(--accent)">reeltime</span> console</h1>
    ${settings.env === 'development'
      ? html`<p class="small"><span class="badge warn">development mode</span> ${dev ? 'Prefilled with the generated development credentials (data/dev-credentials.json).' : 'Use the configured customer id and secret.'}</p>`
      : null}
    <form id="signin" onSubmit=${submit}>
      <label class="field">App ID<input name="appId" value=${form.appId} onInput=${set('appId')} required /></label>
      <label class="field">Customer ID<input name="customerId" value=${form.customerId} onInput=${set('customerId')} required autocomplete="username" /></label>
      <label class="field">Customer secret<input name="customerSecret" type="password" value=${form.customerSecret} onInput=${set('customerSecret')} required autocomplete="current-password" /></label>
      <button class="primary" disabled=${busy}>${busy ? 'Checking…' : 'Sign in'}</button>
      <${ErrorBody} error=${error} />
    </form>
  </div>`;
}

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/channels');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/channels');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return [hash, (h) => (location.hash = h)];
}

function App({ settings }) {
  const [creds, setCreds] = useState(() => JSON.parse(sessionStorage.getItem(STORE_KEY) ?? 'null'));
  const [hash, go] = useHash();
  const api = useMemo(() => (creds ? createApi(creds) : null), [creds]);
  const signIn = (c) => {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(c));
    setCreds(c);
  };
  const signOut = () => {
    sessionStorage.removeItem(STORE_KEY);
    setCreds(null);
  };
  const devNote = settings.env === 'development'
    ? html`<div class="devnote"><b>Development mode.</b> Recordings go to the local bucket and are readable by anyone with a link; credentials may be the generated ones.</div>`
    : null;
  if (!api) return html`${devNote}<main><${SignIn} settings=${settings} onSignIn=${signIn} /></main>`;
  const [, section, sid] = hash.split('/');
  const tab = (name, label) => html`<a href=${`#/${name}`} class=${section === name ? 'on' : ''}>${label}</a>`;
  return html`
    <header class="top">
      <span class="brand"><span>reeltime</span> console</span>
      <nav class="tabs">${tab('channels', 'Channels')}${tab('recordings', 'Recordings')}${tab('ingress', 'Ingress')}${tab('rules', 'Rules')}</nav>
      <span class="who"><span class="hide-narrow">app <code>${creds.appId.slice(0, 8)}…</code> · ${creds.customerId.length > 20 ? `${creds.customerId.slice(0, 20)}…` : creds.customerId}</span>
        <button onClick=${signOut}>Sign out</button></span>
    </header>
    ${devNote}
    <main>
      ${section === 'recordings' && sid
        ? html`<${Session} key=${sid} api=${api} sid=${sid} go=${go} />`
        : section === 'recordings'
          ? html`<${Recordings} api=${api} go=${go} />`
          : section === 'ingress'
            ? html`<${Ingress} api=${api} />`
            : section === 'rules'
              ? html`<${Rules} api=${api} go=${go} />`
              : html`<${Channels} api=${api} settings=${settings} go=${go} />`}
    </main>`;
}

const settings = await (await fetch('/console/settings.json')).json();
const root = document.getElementById('app');
root.textContent = ''; // the loading note is not Preact's to replace
render(html`<${App} settings=${settings} />`, root);
