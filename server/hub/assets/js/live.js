// The live stream: /hub/api/events read with fetch, shown in the Live feed;
// every change asks the page to refresh its views.
import { stream, AuthError } from './api.js';
import { $, el, timeLabel, fullLabel } from './dom.js';

const MAX_FEED = 50;

export function setState(state, label) {
  const s = $('#live-status');
  s.dataset.state = state;
  $('.label', s).textContent = label;
}

function describe(c) {
  const d = c.detail || {};
  switch (c.type) {
    case 'drawer.added': return `${(c.drawer && c.drawer.kind) || d.kind || 'memory'} added`;
    case 'drawer.updated': return 'memory updated';
    case 'drawer.status':
      if (d.to === 'deleted') return 'memory forgotten';
      if (d.to === 'active' && d.from === 'pending') return 'fact approved';
      if (d.to === 'rejected') return 'fact rejected';
      return `${d.from || '?'} → ${d.to || '?'}`;
    default: return c.type;
  }
}

function addToFeed(c) {
  const feed = $('#live-feed');
  const empty = $('.empty', feed);
  if (empty) empty.remove();
  const li = el('li', { class: 'fresh', dataset: { type: c.type, palace: c.palace, id: c.drawer_id || '' } },
    el('time', { datetime: c.at, title: fullLabel(c.at) }, timeLabel(c.at)),
    el('span', { class: 'what' }, el('b', {}, c.palace), ` · ${describe(c)}`),
    c.drawer ? el('span', { class: 'snip', title: c.drawer.content }, c.drawer.content) : null);
  feed.prepend(li);
  while (feed.children.length > MAX_FEED) feed.lastElementChild.remove();
}

// connect keeps the stream open, reconnecting with backoff, until an
// AuthError (the page then asks for the token and calls connect again).
export async function connect(onChange, onAuth) {
  let delay = 1000;
  for (;;) {
    setState('connecting', 'connecting');
    try {
      await stream('events', (name, data) => {
        if (name === 'hello') {
          setState('live', 'live');
          delay = 1000;
          onChange(); // catch up with whatever happened while away
        } else if (name === 'change') {
          addToFeed(data);
          onChange();
        } else if (name === 'palaces') {
          onChange();
        }
      });
    } catch (err) {
      if (err instanceof AuthError) {
        setState('error', 'locked');
        onAuth();
        return;
      }
    }
    setState('error', 'reconnecting');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 15000);
  }
}
