// Stats cards, the six-month heatmap and the last-seven-days chart.
import { $, el, clear, num, plural, parseDay, dayLabel } from './dom.js';

const monthFmt = new Intl.DateTimeFormat(undefined, { month: 'short' });
const weekdayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'short' });

export function renderOverview(ov) {
  renderStats(ov.stats);
  renderHeatmap(ov.days, ov.today);
  renderWeek(ov.days.slice(-7), ov.today);
  const pending = ov.stats.pending;
  const nav = $('#nav-pending');
  nav.hidden = !pending;
  nav.textContent = String(pending);
}

function renderStats(st) {
  for (const card of document.querySelectorAll('.stat')) {
    const key = card.dataset.stat;
    $('.value', card).textContent = num(st[key] ?? 0);
  }
}

// level maps a day's count to one of five shades, relative to the busiest
// day in view.
function level(n, max) {
  if (!n) return 0;
  return Math.min(4, Math.max(1, Math.ceil((4 * n) / max)));
}

function renderHeatmap(days, today) {
  const grid = $('#heatmap');
  const months = $('#heat-months');
  const max = Math.max(1, ...days.map((d) => d.count));
  const first = parseDay(days[0].date);
  const pad = first.getDay(); // weeks start on Sunday, as on GitHub
  const cells = [];
  for (let i = 0; i < pad; i++) cells.push(el('i', { class: 'pad' }));
  const labels = [];
  let lastMonth = -1;
  days.forEach((d, i) => {
    const date = parseDay(d.date);
    const col = Math.floor((pad + i) / 7);
    if (date.getMonth() !== lastMonth && date.getDate() <= 7) {
      labels.push([col, monthFmt.format(date)]);
      lastMonth = date.getMonth();
    }
    const what = `${plural(d.count, 'memory', 'memories')} on ${dayLabel(date)}`;
    cells.push(el('i', {
      class: `l${level(d.count, max)}${d.date === today ? ' today' : ''}`,
      title: what, 'aria-label': what, dataset: { date: d.date, count: d.count },
    }));
  });
  clear(grid, cells);
  const cols = Math.ceil((pad + days.length) / 7);
  const spans = [];
  let free = 0; // first column a label may start in without overlapping
  for (const [col, name] of labels) {
    if (col < free) continue;
    const s = el('span', {}, name);
    s.style.gridColumn = `${col + 1} / span 3`;
    spans.push(s);
    free = col + 3;
  }
  clear(months, spans);
  months.style.gridTemplateColumns = `repeat(${cols}, var(--cell))`;
  const total = days.reduce((a, d) => a + d.count, 0);
  $('#heat-total').textContent = `${plural(total, 'memory', 'memories')} in 6 months`;
  $('#heat-summary').textContent = summary(days);
  // On a narrow screen the grid scrolls: show the recent end first (once,
  // so that a refresh does not undo the reader's scrolling).
  const sc = $('#heat-scroll');
  if (!sc.dataset.placed) {
    sc.scrollLeft = sc.scrollWidth;
    sc.dataset.placed = '1';
  }
}

// summary describes the streaks and the busiest day in view.
function summary(days) {
  let longest = 0;
  let run = 0;
  let busiest = null;
  for (const d of days) {
    run = d.count ? run + 1 : 0;
    longest = Math.max(longest, run);
    if (d.count && (!busiest || d.count >= busiest.count)) busiest = d;
  }
  // The current streak may end yesterday: today is not over yet.
  let current = 0;
  for (let i = days.length - 1; i >= 0; i--) {
    if (days[i].count) current++;
    else if (i < days.length - 1) break;
  }
  if (!busiest) return 'No memories in the last six months.';
  return `Current streak ${plural(current, 'day')} · longest ${plural(longest, 'day')} · busiest ${dayLabel(parseDay(busiest.date))} (${num(busiest.count)})`;
}

function renderWeek(days, today) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const bars = days.map((d) => {
    const bar = el('div', { class: `bar${d.count ? '' : ' zero'}` });
    bar.style.height = `${Math.max(2, Math.round((d.count / max) * 100))}%`;
    const date = parseDay(d.date);
    return el('div', { class: `bar-col${d.date === today ? ' today' : ''}`, title: `${d.count} on ${dayLabel(date)}`, dataset: { date: d.date, count: d.count } },
      el('span', { class: 'n' }, num(d.count)),
      bar,
      el('span', { class: 'd' }, d.date === today ? 'Today' : weekdayFmt.format(date)));
  });
  clear($('#week'), bars);
  const total = days.reduce((a, d) => a + d.count, 0);
  $('#week-total').textContent = `${num(total)} this week`;
}
