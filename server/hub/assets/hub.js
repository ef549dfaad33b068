// loci Memory Hub: wires the views to the API and to the live stream.
import { api, token, tzQuery, AuthError } from './js/api.js';
import { $, banner } from './js/dom.js';
import { renderOverview } from './js/overview.js';
import { initPalaces, renderPalaces, refreshOpen } from './js/palaces.js';
import { initPanels, setPalaces, loadReview, loadGraph } from './js/panels.js';
import { connect, setState } from './js/live.js';

let timer = 0;
let running = null;
let again = false;
let refreshes = 0;

// refresh reloads every view. Calls that arrive while one runs fold into
// one more run after it.
async function refresh() {
  if (running) { again = true; return running; }
  running = (async () => {
    try {
      const [ov, pal] = await Promise.all([
        api('overview', { query: Object.fromEntries(tzQuery()) }),
        api('palaces'),
      ]);
      renderOverview(ov);
      renderPalaces(pal.palaces);
      setPalaces(pal.palaces);
      await Promise.all([loadReview(), refreshOpen(), loadGraph()]);
      banner('');
      refreshes++;
      document.body.dataset.refreshes = String(refreshes);
    } catch (err) {
      if (err instanceof AuthError) askToken();
      else banner(`Could not reach the loci companion: ${err.message}`);
    }
  })();
  await running;
  running = null;
  if (again) { again = false; await refresh(); }
}

function soon() {
  clearTimeout(timer);
  timer = setTimeout(refresh, 200);
}

let asking = false;
function askToken() {
  const dlg = $('#token-dialog');
  if (asking) return;
  asking = true;
  setState('error', 'locked');
  $('#token-msg').textContent = token.get() ? 'That token was refused.' : '';
  token.set('');
  $('#token-input').value = '';
  if (!dlg.open) dlg.showModal();
}

function init() {
  initPalaces(soon);
  initPanels(soon);
  $('#token-form').addEventListener('submit', (e) => {
    e.preventDefault();
    token.set($('#token-input').value.trim());
    $('#token-dialog').close();
    asking = false;
    refresh().then(() => { if (!asking) live(); });
  });
  $('#token-dialog').addEventListener('cancel', (e) => e.preventDefault());
  refresh().then(() => { if (!asking) live(); });
}

let liveOn = false;
function live() {
  if (liveOn) return;
  liveOn = true;
  connect(soon, () => { liveOn = false; askToken(); });
}

init();
