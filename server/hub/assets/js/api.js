// The hub's API client. A bearer token, when the companion wants one, is
// kept in sessionStorage (this tab only) and sent as a header: never in a
// URL, never in localStorage.

const TOKEN_KEY = 'loci.hub.token';

export class AuthError extends Error {}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) || '',
  set: (t) => (t ? sessionStorage.setItem(TOKEN_KEY, t) : sessionStorage.removeItem(TOKEN_KEY)),
};

function headers(extra) {
  const h = { Accept: 'application/json', ...extra };
  const t = token.get();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

// The viewer's zone, so the server counts memories per local day.
export function tzQuery() {
  const q = new URLSearchParams({ tz_offset: String(-new Date().getTimezoneOffset()) });
  try {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz) q.set('tz', tz);
  } catch (_) { /* offset alone will do */ }
  return q;
}

// api fetches /hub/api/<path>. Changes use a method other than GET and
// carry X-Loci-Hub, which the server requires of them.
export async function api(path, { method = 'GET', query, body } = {}) {
  let url = `/hub/api/${path}`;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  const extra = method === 'GET' ? {} : { 'X-Loci-Hub': '1' };
  if (body !== undefined) extra['Content-Type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers: headers(extra),
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  if (res.status === 401) throw new AuthError('token required');
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const msg = data && data.error ? data.error.message : `${res.status} ${res.statusText}`;
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return data;
}

// undo spends an undo token (from a reject or a forget) in a palace.
export function undo(palace, tok) {
  return api(`palaces/${encodeURIComponent(palace)}/undo`, { method: 'POST', body: { token: tok } });
}

// stream reads the server-sent events at /hub/api/<path> with fetch (an
// EventSource cannot send the Authorization header) and calls
// onEvent(name, data) for each. It resolves when the stream ends.
export async function stream(path, onEvent, signal) {
  const res = await fetch(`/hub/api/${path}`, {
    headers: headers({ Accept: 'text/event-stream' }), cache: 'no-store', credentials: 'omit', signal,
  });
  if (res.status === 401) throw new AuthError('token required');
  if (!res.ok || !res.body) throw new Error(`live stream: ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value.replace(/\r\n?/g, '\n');
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const i = line.indexOf(':');
        const field = i < 0 ? line : line.slice(0, i);
        const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
        if (field === 'event') name = val;
        else if (field === 'data') data.push(val);
      }
      if (data.length) {
        let parsed;
        try { parsed = JSON.parse(data.join('\n')); } catch (_) { continue; }
        onEvent(name, parsed);
      }
    }
  }
}
