// Search, the review queue and the knowledge-graph browser.
import { api, undo } from './api.js';
import { openDetail } from './palaces.js';
import { $, el, clear, plural, num, ago, fullLabel, highlight, kindBadge, toast } from './dom.js';

let changed = () => {};
let kgSelected = '';
let kgChosen = false; // the person picked the graph's palace: keep it
let triplesOf = new Map(); // palace name -> active triples

export function initPanels(onChange) {
  changed = onChange;
  $('#search-form').addEventListener('submit', (e) => { e.preventDefault(); search(); });
  $('#kg-palace').addEventListener('change', () => { kgSelected = ''; kgChosen = true; loadGraph(); });
  let t;
  $('#kg-prefix').addEventListener('input', () => { clearTimeout(t); t = setTimeout(loadGraph, 200); });
}

// setPalaces fills the palace pickers from the palace cards, keeping the
// current choices. Until a person picks one, the graph opens on the
// palace with the most triples rather than on the first name.
export function setPalaces(cards) {
  const names = cards.map((c) => c.name);
  triplesOf = new Map(cards.map((c) => [c.name, c.triples || 0]));
  const fill = (sel, first) => {
    const keep = sel.value;
    clear(sel, first, names.map((n) => el('option', { value: n }, n)));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  };
  fill($('#search-palace'), el('option', { value: '' }, 'All palaces'));
  const kg = $('#kg-palace');
  fill(kg, null);
  if (!kgChosen) {
    const best = [...cards].sort((a, b) => (b.triples || 0) - (a.triples || 0))[0];
    if (best && (best.triples || 0) > 0 && kg.value !== best.name) { kg.value = best.name; kgSelected = ''; }
  }
}

// graphElsewhere names the palaces that do have triples, for an empty one.
function graphElsewhere(palace) {
  const others = [...triplesOf].filter(([n, c]) => n !== palace && c > 0).sort((a, b) => b[1] - a[1]);
  if (!others.length) return `No triples in ${palace}, nor in any other palace yet. Agents add them with kg_add; people with \`loci kg assert\`.`;
  return `No triples in ${palace}. The graph has data in ${others.slice(0, 3).map(([n, c]) => `${n} (${plural(c, 'triple')})`).join(', ')}: pick it above.`;
}

async function search() {
  const q = $('#search-q').value.trim();
  const info = $('#search-info');
  const out = $('#search-results');
  if (!q) { clear(out); info.textContent = ''; return; }
  info.textContent = 'Searching…';
  let res;
  try {
    res = await api('search', { query: { q, palace: $('#search-palace').value, mode: $('#search-mode').value, k: 10 } });
  } catch (err) {
    info.textContent = err.message;
    return;
  }
  info.textContent = `${plural(res.hits.length, 'result')} for “${q}”`;
  clear(out, res.hits.map((h) => el('li', { class: 'mem hit', tabindex: '0', dataset: { id: h.drawer.id, palace: h.palace },
    onclick: () => openDetail(h.palace, h.drawer.id),
    onkeydown: (e) => { if (e.key === 'Enter') openDetail(h.palace, h.drawer.id); } },
  el('div', { class: 'meta' },
    el('span', { class: 'pill' }, h.palace), kindBadge(h.drawer.kind),
    el('span', { class: 'score', title: 'fused relevance' }, `score ${h.score.toFixed(3)}`),
    el('time', { datetime: h.drawer.timestamp }, fullLabel(h.drawer.timestamp))),
  el('div', { class: 'text' }, highlight(h.drawer.content, q)))));
  if (!res.hits.length) out.append(el('li', { class: 'empty' }, 'Nothing found.'));
}

export async function loadReview() {
  const res = await api('review');
  $('#review-count').textContent = num(res.total);
  const list = $('#review-list');
  clear(list, res.items.map(reviewItem));
  if (!res.items.length) list.append(el('li', { class: 'empty' }, 'Nothing waits for review.'));
}

function reviewItem({ palace, fact }) {
  const li = el('li', { class: 'review-item', dataset: { id: fact.id, palace } },
    el('div', { class: 'meta muted small' },
      el('span', { class: 'pill' }, palace), ' ', el('span', { class: 'kind kind-fact' }, fact.kind), ' ',
      `${fact.id} · confidence ${Math.round(fact.confidence * 100)}% · ${ago(fact.created_at)}`,
      fact.tier === 3 ? ' · always reviewed' : null),
    el('div', { class: 'text' }, fact.fact),
    fact.conflicts_with ? el('div', { class: 'conflict small' }, `Contradicts ${fact.conflicts_with}; approving replaces it.`) : null);
  const actions = el('div', { class: 'actions' },
    el('button', { type: 'button', class: 'ok', dataset: { action: 'approve' }, onclick: () => act(li, palace, fact, 'approve') }, 'Approve'),
    el('button', { type: 'button', class: 'danger', dataset: { action: 'reject' }, onclick: () => act(li, palace, fact, 'reject') }, 'Reject'));
  li.append(actions);
  return li;
}

async function act(li, palace, fact, action) {
  for (const b of li.querySelectorAll('button')) b.disabled = true;
  let res;
  try {
    res = await api(`palaces/${encodeURIComponent(palace)}/review/${encodeURIComponent(fact.id)}/${action}`, { method: 'POST' });
  } catch (err) {
    toast(err.message);
    for (const b of li.querySelectorAll('button')) b.disabled = false;
    return;
  }
  li.remove();
  let text = `${action === 'approve' ? 'Approved' : 'Rejected'} ${fact.id}`;
  if (res.superseded) text += `; it replaces ${res.superseded.id}`;
  if (res.undo) {
    toast(text, 'Undo', async () => {
      try {
        await undo(palace, res.undo);
        toast(`${fact.id} is back in the queue`);
      } catch (err) {
        toast(`Undo failed: ${err.message}`);
      }
      changed();
    }, 10000);
  } else {
    toast(text);
  }
  changed();
}

export async function loadGraph() {
  const palace = $('#kg-palace').value;
  const box = $('#kg-subjects');
  if (!palace) { clear(box); $('#kg-stats').textContent = ''; return; }
  const res = await api(`palaces/${encodeURIComponent(palace)}/kg`, { query: { prefix: $('#kg-prefix').value.trim() } });
  $('#kg-stats').textContent = `${plural(res.stats.active, 'triple')} · ${plural(res.stats.subjects, 'subject')}`;
  clear(box, res.subjects.map((s) => el('li', {},
    el('button', { type: 'button', 'aria-pressed': s.subject === kgSelected ? 'true' : 'false', dataset: { subject: s.subject },
      onclick: () => showSubject(palace, s.subject) },
    s.subject, el('span', { class: 'n' }, `${s.active}/${s.total}`)))));
  if (!res.subjects.length) {
    const filtered = $('#kg-prefix').value.trim() !== '';
    box.append(el('li', { class: 'muted small kg-empty' }, filtered ? 'No subjects match the filter.' : graphElsewhere(palace)));
  }
  if (kgSelected) await showSubject(palace, kgSelected);
  else $('#kg-subject').hidden = true;
}

async function showSubject(palace, subject) {
  kgSelected = subject;
  for (const b of document.querySelectorAll('#kg-subjects button')) {
    b.setAttribute('aria-pressed', b.dataset.subject === subject ? 'true' : 'false');
  }
  const box = $('#kg-subject');
  box.hidden = false;
  let res;
  try {
    res = await api(`palaces/${encodeURIComponent(palace)}/kg/subject`, { query: { s: subject } });
  } catch (err) {
    clear(box, el('p', { class: 'muted' }, err.message));
    return;
  }
  const since = (t) => (t ? fullLabel(t) : '');
  clear(box,
    el('h3', {}, `${subject}: active`),
    res.active.length
      ? el('table', { class: 'triples' }, el('tbody', {}, res.active.map((t) => el('tr', {},
        el('td', {}, t.predicate), el('td', {}, t.object), el('td', { class: 'muted small' }, `since ${since(t.valid_from)}`)))))
      : el('p', { class: 'muted small' }, 'No active triples.'),
    el('h3', {}, 'History'),
    el('ol', { class: 'history' }, res.history.map((t) => el('li', { class: t.valid_to ? 'closed' : 'open' },
      el('span', {}, `${t.predicate} `), el('b', { class: 'obj' }, t.object), ' ',
      el('span', { class: 'when' }, t.valid_to ? `${since(t.valid_from)} → ${since(t.valid_to)}` : `${since(t.valid_from)} → now`)))));
}
