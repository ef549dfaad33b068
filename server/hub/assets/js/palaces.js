// Palace cards with their per-date timelines, and the drawer detail dialog.
import { api, undo } from './api.js';
import { $, el, clear, plural, num, ago, localDate, dayLabel, timeLabel, fullLabel, kindBadge, toast } from './dom.js';

const PAGE = 20;
const open = new Map(); // palace name -> { drawers, total, remaining, el }
let changed = () => {};

export function initPalaces(onChange) {
  changed = onChange;
  const dlg = $('#detail');
  dlg.addEventListener('click', (e) => {
    if (e.target === dlg || e.target.closest('[data-close]')) dlg.close();
  });
}

export function renderPalaces(cards) {
  $('#palace-count').textContent = plural(cards.length, 'palace');
  const names = new Set(cards.map((c) => c.name));
  for (const name of open.keys()) if (!names.has(name)) open.delete(name);
  const list = cards.map((c) => {
    const st = open.get(c.name);
    const head = el('button', { type: 'button', class: 'palace-head', 'aria-expanded': st ? 'true' : 'false',
      onclick: () => toggle(c.name) },
    el('span', { class: 'name' }, c.name),
    el('span', { class: 'count' }, plural(c.memories, 'memory', 'memories')),
    el('span', { class: 'desc' }, c.description || `last memory ${ago(c.last_activity)}`),
    el('span', { class: 'facts' }, [c.pending ? `${num(c.pending)} pending` : null, c.triples ? plural(c.triples, 'triple') : null]
      .filter(Boolean).join(' · ')));
    const card = el('article', { class: 'card palace', dataset: { palace: c.name }, 'data-open': st ? true : null }, head);
    if (st) card.append(st.el);
    return card;
  });
  if (!list.length) list.push(el('p', { class: 'muted' }, 'No palaces yet. Agents create one on their first memory.'));
  clear($('#palace-list'), list);
}

async function toggle(name) {
  const card = document.querySelector(`.palace[data-palace="${CSS.escape(name)}"]`);
  if (open.has(name)) {
    open.get(name).el.remove();
    open.delete(name);
    card.removeAttribute('data-open');
    $('.palace-head', card).setAttribute('aria-expanded', 'false');
    return;
  }
  const st = { drawers: [], total: 0, remaining: 0, el: el('div', { class: 'timeline' }, el('p', { class: 'muted' }, 'Loading…')) };
  open.set(name, st);
  card.setAttribute('data-open', '');
  $('.palace-head', card).setAttribute('aria-expanded', 'true');
  card.append(st.el);
  await load(name, false);
}

// load fetches the next page of a palace's timeline, or with reset the
// first pages again (as many memories as are shown), marking new ones.
// Loads of one palace run one after another: a refresh that a live change
// started must not land after a "Load more" that began later and put the
// shorter list back (nor a page be fetched at an offset a refresh is about
// to change).
function load(name, reset) {
  const st = open.get(name);
  if (!st) return Promise.resolve();
  st.queue = (st.queue || Promise.resolve()).catch(() => {}).then(() => loadNow(name, st, reset));
  return st.queue;
}

async function loadNow(name, st, reset) {
  if (open.get(name) !== st) return; // closed meanwhile
  const limit = reset ? Math.min(200, Math.max(PAGE, st.drawers.length)) : PAGE;
  const offset = reset ? 0 : st.drawers.length;
  let page;
  try {
    page = await api(`palaces/${encodeURIComponent(name)}/drawers`, { query: { offset, limit } });
  } catch (err) {
    clear(st.el, el('p', { class: 'muted' }, `Could not load: ${err.message}`));
    return;
  }
  const known = new Set(st.drawers.map((d) => d.id));
  if (reset) {
    for (const d of page.drawers) d.fresh = st.drawers.length > 0 && !known.has(d.id);
    st.drawers = page.drawers;
  } else {
    st.drawers = st.drawers.concat(page.drawers.filter((d) => !known.has(d.id)));
  }
  st.total = page.total;
  st.remaining = Math.max(0, page.total - st.drawers.length);
  renderTimeline(name, st);
}

export function refreshOpen() {
  return Promise.all([...open.keys()].map((n) => load(n, true)));
}

function renderTimeline(name, st) {
  const today = localDate(new Date());
  const groups = new Map();
  for (const d of st.drawers) {
    const key = localDate(new Date(d.timestamp));
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(d);
  }
  const days = [...groups].map(([key, ds]) => el('div', { class: 'day', dataset: { date: key } },
    el('div', { class: 'day-head' },
      el('span', {}, dayLabel(new Date(ds[0].timestamp))),
      key === today ? el('span', { class: 'today-tag' }, 'Today') : null,
      el('span', { class: 'n' }, plural(ds.length, 'memory', 'memories'))),
    el('ul', {}, ds.map((d) => memItem(d)))));
  if (!days.length) days.push(el('p', { class: 'muted' }, 'No memories in this palace yet.'));
  const more = st.remaining > 0
    ? el('button', { type: 'button', class: 'more', onclick: (e) => { e.target.disabled = true; load(name, false); } },
      `Load more (${num(st.remaining)} remaining)`)
    : null;
  clear(st.el, days, more);
}

function memItem(d) {
  return el('li', { class: `mem${d.fresh ? ' fresh' : ''}`, tabindex: '0', dataset: { id: d.id },
    onclick: () => openDetail(d.palace, d.id),
    onkeydown: (e) => { if (e.key === 'Enter') openDetail(d.palace, d.id); } },
  kindBadge(d.kind),
  el('span', { class: 'text' }, d.content),
  el('time', { datetime: d.timestamp, title: fullLabel(d.timestamp) }, timeLabel(d.timestamp)));
}

// openDetail shows one drawer in full, with a two-step Forget.
export async function openDetail(palaceName, id) {
  const dlg = $('#detail');
  const body = $('#detail-body');
  const msg = $('#detail-msg');
  const forget = $('#detail-forget');
  clear(body, el('p', { class: 'muted' }, 'Loading…'));
  msg.textContent = '';
  forget.hidden = true;
  if (!dlg.open) dlg.showModal();
  let d;
  try {
    d = (await api(`palaces/${encodeURIComponent(palaceName)}/drawers/${encodeURIComponent(id)}`)).drawer;
  } catch (err) {
    clear(body, el('p', { class: 'muted' }, err.message));
    return;
  }
  $('#detail-title').textContent = `${d.kind.replace('_', ' ')} in ${palaceName}`;
  const row = (k, v) => (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length)
    ? null : [el('dt', {}, k), el('dd', {}, Array.isArray(v) ? v.join(', ') : String(v))]);
  clear(body,
    el('p', { class: 'content' }, d.content),
    el('dl', {},
      row('Status', d.status), row('Room', roomLabel(d.room)), row('Tags', d.tags),
      row('Importance', d.importance), row('Confidence', d.confidence),
      row('When', fullLabel(d.timestamp)), row('Stored', fullLabel(d.created_at)), row('Updated', fullLabel(d.updated_at)),
      row('Recalled', d.access_count ? `${d.access_count} times, last ${ago(d.last_access)}` : null),
      row('Session', d.session_id), row('User', d.user_id), row('Agent', d.agent_id),
      row('Superseded by', d.superseded_by), row('Secrets redacted', d.redactions || null),
      row('Model', d.model), row('ID', d.id),
      d.meta ? [el('dt', {}, 'Meta'), el('dd', {}, el('pre', {}, JSON.stringify(d.meta, null, 2)))] : null));
  forget.hidden = d.status === 'deleted';
  forget.textContent = 'Forget';
  forget.disabled = false;
  forget.onclick = async () => {
    if (forget.textContent === 'Forget') {
      forget.textContent = 'Confirm forget';
      msg.textContent = 'It leaves recall everywhere.';
      return;
    }
    forget.disabled = true;
    try {
      const res = await api(`palaces/${encodeURIComponent(palaceName)}/drawers/${encodeURIComponent(id)}`, { method: 'DELETE' });
      dlg.close();
      toast('Memory forgotten', 'Undo', async () => {
        try {
          await undo(palaceName, res.undo);
          toast('Memory restored');
        } catch (err) {
          toast(`Undo failed: ${err.message}`);
        }
        changed();
      }, 10000);
      changed();
    } catch (err) {
      msg.textContent = err.message;
      forget.disabled = false;
    }
  };
}

// roomLabel shows a room as people named it: the stored form of a custom
// room, Custom(Ops), reads "Ops" (the API keeps the stored form).
function roomLabel(room) {
  const m = /^Custom\((.+)\)$/.exec(room || '');
  return m ? m[1] : room;
}
