// Small DOM and formatting helpers. Text always goes in through
// textContent (never innerHTML): memories are untrusted text.

export const $ = (sel, root = document) => root.querySelector(sel);

// el(tag, attrs, ...children): attrs may hold class, dataset (object),
// on<event> handlers, hidden, and any attribute; children are nodes,
// strings or arrays of them (null and false are skipped).
export function el(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') n.className = v;
    else if (k === 'dataset') Object.assign(n.dataset, v);
    else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else if (k === 'text') n.textContent = v;
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  append(n, children);
  return n;
}

function append(n, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(n, c);
    else n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(n, ...children) {
  n.replaceChildren();
  append(n, children);
  return n;
}

// Dates: the API speaks RFC 3339 UTC and YYYY-MM-DD local dates.
export function localDate(d) {
  const p = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function parseDay(s) {
  const [y, m, d] = s.split('-').map(Number);
  return new Date(y, m - 1, d);
}

const fmtDay = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric' });
const fmtTime = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const fmtFull = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const fmtNum = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

const fmtDayYear = new Intl.DateTimeFormat(undefined, { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric' });
export const dayLabel = (d) => (d.getFullYear() === new Date().getFullYear() ? fmtDay : fmtDayYear).format(d);
export const timeLabel = (iso) => fmtTime.format(new Date(iso));
export const fullLabel = (iso) => (iso ? fmtFull.format(new Date(iso)) : '');
export const num = (x) => fmtNum.format(x);

export function ago(iso) {
  if (!iso) return 'never';
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (s < 60) return 'just now';
  const units = [[60, 'minute'], [24, 'hour'], [30, 'day'], [12, 'month'], [Infinity, 'year']];
  let v = s / 60;
  for (const [step, unit] of units) {
    if (v < step) {
      const n = Math.floor(v);
      return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
    }
    v /= step;
  }
  return '';
}

export const plural = (n, one, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

// highlight returns text as nodes with the query's words wrapped in <mark>.
export function highlight(text, query) {
  const words = (query || '').toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter((w) => w.length > 1);
  if (!words.length) return [text];
  const esc = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(`(${esc.join('|')})`, 'giu');
  return text.split(re).map((part, i) => (i % 2 ? el('mark', {}, part) : part));
}

export function kindBadge(kind) {
  return el('span', { class: `kind kind-${kind}` }, kind.replace('_', ' '));
}

// toast shows a message at the bottom, with an optional action button.
let toastTimer;
export function toast(text, action, onAction, ms = 6000) {
  const t = $('#toast');
  $('.toast-text', t).textContent = text;
  const b = $('.toast-action', t);
  b.hidden = !action;
  b.textContent = action || '';
  b.onclick = () => { t.hidden = true; onAction(); };
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, ms);
}

export function banner(msg) {
  const b = $('#banner');
  b.textContent = msg || '';
  b.hidden = !msg;
}
