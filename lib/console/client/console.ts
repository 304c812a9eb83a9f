/**
 * The developer console's browser script (bundled by scripts/build-console.ts into lib/generated/console-client.ts
 * and served as `/developers/console/console.js`): passkey sign-up and sign-in through
 * `@simplewebauthn/browser`, minting and revoking keys, reading and accepting an invitation (its token is the
 * link's fragment, which no request path carries), signing out, and copying a key. Every request is a
 * same-origin JSON POST carrying the page's CSRF token (`X-CSRF-Token`).
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { clientSetups, type SetupKeys } from '../../mcp/clients.ts';

const BASE = '/developers/console/api';

/** The problem+json detail of a failed response, or a generic sentence. */
async function problemDetail(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
  } catch {
    // not JSON
  }
  return `The request failed (${res.status}).`;
}

/** POSTs JSON to a console endpoint; throws an Error with the problem's detail on failure. */
async function post<T>(path: string, body: unknown = {}): Promise<T> {
  const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
  const res = await fetch(BASE + path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': token },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(await problemDetail(res));
  return (await res.json()) as T;
}

function status(text: string): void {
  const el = document.getElementById('status');
  if (el) el.textContent = text;
}

/** Where to go once signed in: back to an OAuth authorization page that asked for the sign-in, else the dashboard. */
function afterSignIn(): string {
  return location.pathname === '/developers/console/oauth/authorize' ? location.href : '/developers/console';
}

async function register(invitation: string | undefined): Promise<void> {
  if (!browserSupportsWebAuthn()) throw new Error('This browser does not support passkeys.');
  const { options } = await post<{ options: Parameters<typeof startRegistration>[0]['optionsJSON'] }>('/register/options');
  const response = await startRegistration({ optionsJSON: options });
  await post('/register/verify', { response, ...(invitation ? { invitation } : {}) });
  location.assign(afterSignIn());
}

async function login(invitation: string | undefined): Promise<void> {
  if (!browserSupportsWebAuthn()) throw new Error('This browser does not support passkeys.');
  const { options } = await post<{ options: Parameters<typeof startAuthentication>[0]['optionsJSON'] }>('/login/options');
  const response = await startAuthentication({ optionsJSON: options });
  await post('/login/verify', { response, ...(invitation ? { invitation } : {}) });
  location.assign(afterSignIn());
}

async function mint(form: HTMLFormElement): Promise<void> {
  const data = new FormData(form);
  const label = String(data.get('label') ?? '').trim();
  if (label === '') {
    status('Give the key a label.');
    form.querySelector<HTMLInputElement>('#key-label')?.focus();
    return;
  }
  const minted = await post<{ key: string; prefix: string; scope: string }>('/keys', { label, scope: String(data.get('scope') ?? 'calc') });
  const panel = document.getElementById('new-key')!;
  document.getElementById('new-key-value')!.textContent = minted.key;
  document.getElementById('new-key-export')!.textContent = `export FUND_EDGE_KEY=${minted.key}`;
  panel.hidden = false;
  panel.focus();
  form.reset();
  fillClientSetups(minted.scope === 'fund' ? { publicKey: minted.key, fundKey: minted.key } : { publicKey: minted.key });
  status(`Key ${minted.prefix}… minted. Copy it now: it is shown once. The MCP client snippets below carry it.`);
  await refreshKeys();
}

/**
 * Puts a key just minted into the quick starts' MCP client snippets, computed by the module the server
 * rendered them with (lib/mcp/clients.ts), for the servers' URLs the section names.
 */
function fillClientSetups(keys: SetupKeys): void {
  const section = document.querySelector<HTMLElement>('section.clients');
  if (!section) return;
  const urls = { public: section.dataset.mcpPublic ?? '', fund: section.dataset.mcpFund ?? '' };
  for (const setup of clientSetups(urls, keys)) {
    for (const snippet of setup.snippets) {
      const id = `${setup.id}:${snippet.variant}`;
      const code = section.querySelector(`[data-setup="${id}"]`);
      if (code) code.textContent = snippet.text;
      const link = section.querySelector<HTMLAnchorElement>(`[data-setup-link="${id}"]`);
      if (link && snippet.link) link.href = snippet.link;
      // A link held back until the key was known (lib/site/clients-section.ts): shown now, its note gone.
      const held = section.querySelector<HTMLElement>(`[data-setup-install="${id}"]`);
      if (held && link && snippet.link) {
        held.querySelector<HTMLElement>('.no-link')?.remove();
        link.parentElement!.hidden = false;
      }
    }
  }
}

/** Shows the account's keys as the server lists them now (the card alone, `GET /developers/console/keys`). */
async function refreshKeys(): Promise<void> {
  const res = await fetch('/developers/console/keys', { credentials: 'same-origin' });
  if (!res.ok) return;
  const card = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('keys-card');
  if (card) document.getElementById('keys-card')?.replaceWith(document.importNode(card, true));
}

async function copy(targetId: string): Promise<void> {
  const text = document.getElementById(targetId)?.textContent ?? '';
  await navigator.clipboard.writeText(text);
  status('Copied to the clipboard.');
}

/**
 * On an invitation link's page (`/developers/console/invite#<token>`): asks what the invitation grants and
 * shows it, its buttons carrying the token, or says it cannot be used.
 */
async function showInvitation(): Promise<void> {
  if (!document.getElementById('invitation-page')) return;
  const show = (id: string) => {
    for (const part of ['invite-checking', 'invite-usable', 'invite-unusable']) document.getElementById(part)!.hidden = part !== id;
  };
  const token = location.hash.slice(1);
  if (!/^[0-9A-Za-z]{32}$/.test(token)) return show('invite-unusable');
  let granted: { fundId: string; plan: string };
  try {
    granted = await post('/invitations/preview', { invitation: token });
  } catch {
    return show('invite-unusable');
  }
  document.getElementById('invite-fund')!.textContent = granted.fundId;
  document.getElementById('invite-paid')!.hidden = granted.plan !== 'paid';
  for (const button of document.querySelectorAll<HTMLElement>('#invite-usable [data-action]')) button.dataset.invitation = token;
  show('invite-usable');
}

const actions: Record<string, (el: HTMLElement) => Promise<void>> = {
  register: (el) => register(el.dataset.invitation || undefined),
  login: (el) => login(el.dataset.invitation || undefined),
  logout: async () => {
    await post('/logout');
    location.assign('/developers/console');
  },
  revoke: async (el) => {
    if (!confirm('Revoke this key? Calls with it will fail at once.')) return;
    await post(`/keys/${encodeURIComponent(el.dataset.keyId ?? '')}/revoke`);
    location.reload();
  },
  'accept-invitation': async (el) => {
    await post('/invitations/accept', { invitation: el.dataset.invitation });
    location.assign('/developers/console');
  },
  copy: (el) => copy(el.dataset.copyTarget ?? ''),
  reload: async () => location.assign('/developers/console'),
};

document.addEventListener('click', (event) => {
  const el = (event.target as Element | null)?.closest<HTMLElement>('[data-action]');
  const action = el && actions[el.dataset.action ?? ''];
  if (!el || !action) return;
  event.preventDefault();
  el.setAttribute('aria-busy', 'true');
  action(el)
    .catch((err: unknown) => status(err instanceof Error ? err.message : 'Something went wrong.'))
    .finally(() => el.removeAttribute('aria-busy'));
});

document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  if (form.id !== 'mint-form') return;
  event.preventDefault();
  mint(form).catch((err: unknown) => status(err instanceof Error ? err.message : 'Something went wrong.'));
});

/**
 * The usage chart (lib/console/usage-chart.tsx): the read-out under it names the day a bar is hovered or
 * focused, and the arrow keys (Home and End too) move the one focusable bar between days.
 */
function wireUsageChart(): void {
  const chart = document.querySelector<SVGSVGElement>('svg.usage-chart');
  const readout = document.querySelector<HTMLElement>('figure.usage .readout');
  if (!chart || !readout) return;
  const bars = [...chart.querySelectorAll<SVGRectElement>('rect.bar')];
  const show = (target: EventTarget | null) => {
    const bar = target instanceof SVGRectElement && bars.includes(target) ? target : null;
    if (bar) readout.textContent = `${bar.getAttribute('aria-label')} (${bar.dataset.share}).`;
  };
  chart.addEventListener('mouseover', (event) => show(event.target));
  chart.addEventListener('focusin', (event) => show(event.target));
  chart.addEventListener('keydown', (event) => {
    const at = bars.indexOf(event.target as SVGRectElement);
    const moves: Record<string, number> = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: bars.length - 1 };
    const next = bars[Math.min(Math.max(moves[event.key] ?? -1, 0), bars.length - 1)];
    if (at < 0 || !(event.key in moves) || !next) return;
    event.preventDefault();
    for (const bar of bars) bar.tabIndex = bar === next ? 0 : -1;
    next.focus();
  });
}

wireUsageChart();
showInvitation().catch(() => status('The invitation could not be checked; reload the page.'));
