// mcpscope's HTML export: reads the session (two gzip+base64 blocks the
// export wrote), then draws the header, the Scope (a canvas), the Timeline
// (a virtualised list: only the rows in sight are in the DOM), the findings
// grouped with their fixes, and the calls' statistics.
//
// Every string that came from a server, a host or the recording goes in
// as text (textContent, createTextNode, canvas fillText), never as markup.
// When done the body says so for the tests: data-state="ready", the time
// it took (data-ready-ms) and what it drew (data-events, data-call-lanes…).
'use strict';
(function () {
  const ROW = 20; // Timeline row height, px (page.css: .row).
  const MAXH = 8000000; // Taller lists scroll proportionally (browsers cap heights).
  const LABEL_W = 190; // The Scope's label column, CSS px.
  const AXIS_H = 22;
  const LANE_H = 22;
  const SPAN_H = 7;
  const MAX_SPAN_ROWS = 24;
  const SEV = { info: 1, warning: 2, error: 3 };
  const body = document.body;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };

  function bytesOf(b64) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function inflate(id) {
    const packed = bytesOf($(id).textContent.trim());
    const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  function dur(us) {
    if (us === null || us === undefined || !isFinite(us)) return '–';
    const a = Math.abs(us);
    if (a < 1000) return Math.round(us) + ' µs';
    if (a < 1e6) return (us / 1000).toFixed(a < 1e4 ? 2 : 1) + ' ms';
    if (a < 6e7) return (us / 1e6).toFixed(a < 1e7 ? 3 : 2) + ' s';
    const s = Math.round(us / 1e6);
    return Math.floor(s / 60) + 'm ' + String(s % 60).padStart(2, '0') + 's';
  }
  const ms = (v) => (v === null || v === undefined ? '–' : dur(v * 1000));

  async function main() {
    const [indexBytes, raw] = await Promise.all([inflate('index'), inflate('raw')]);
    const D = JSON.parse(new TextDecoder().decode(indexBytes));
    const E = D.events;
    const n = E.dt.length;
    // Columns into typed arrays: time since the first event (µs), seq,
    // byte offsets into `raw`, lane, label.
    const T = new Float64Array(n);
    const SEQ = new Float64Array(n);
    const OFF = new Float64Array(n + 1);
    const LANE = Int32Array.from(E.lane);
    const LABEL = Int32Array.from(E.label);
    let t = 0, s = E.seq0, o = 0;
    for (let i = 0; i < n; i++) {
      t += E.dt[i]; s += E.dseq[i]; T[i] = t; SEQ[i] = s; OFF[i] = o; o += E.len[i];
    }
    OFF[n] = o;
    // Arrival order is seq order; times may step back a little between
    // channels, so the Scope searches prefix maxima and suffix minima.
    const TMAX = new Float64Array(n);
    const TMIN = new Float64Array(n);
    for (let i = 0, m = -Infinity; i < n; i++) { m = Math.max(m, T[i]); TMAX[i] = m; }
    for (let i = n - 1, m = Infinity; i >= 0; i--) { m = Math.min(m, T[i]); TMIN[i] = m; }
    const total = D.calls.reduce((a, c) => Math.max(a, c.end_us), Math.max(1, n ? TMAX[n - 1] : 1));
    const labels = D.labels;
    const progressLabel = labels.indexOf('notifications/progress');
    const dec = new TextDecoder();
    const text = (i, max) => dec.decode(raw.subarray(OFF[i], max ? Math.min(OFF[i + 1], OFF[i] + max) : OFF[i + 1]));
    const indexOfSeq = (seq) => {
      let lo = 0, hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (SEQ[mid] < seq) lo = mid + 1; else if (SEQ[mid] > seq) hi = mid - 1; else return mid;
      }
      return -1;
    };
    // The worst finding citing each event, and which findings do.
    const flag = new Map();
    const citing = new Map();
    D.findings.forEach((f, k) => {
      for (const seq of f.seqs) {
        const r = SEV[f.severity] || 0;
        if ((flag.get(seq) || 0) < r) flag.set(seq, r);
        if (!citing.has(seq)) citing.set(seq, []);
        const c = citing.get(seq);
        if (c.length < 20) c.push(k);
      }
    });
    const sevName = ['', 'info', 'warning', 'error'];

    summary(D);
    const timeline = makeTimeline();
    makeFindings(D);
    makeCalls(D);
    const scope = makeScope();

    // `#seq=N` (a finding's frame link, or the address the page was opened
    // at) selects that event in the Timeline and opens its frame.
    function follow() {
      const m = /^#seq=(\d+)$/.exec(location.hash);
      if (m) timeline.select(indexOfSeq(Number(m[1])), true);
    }
    window.addEventListener('hashchange', follow);
    follow();

    $('status').textContent = n + ' events, ' + D.calls.length + ' calls, ' + D.findings.length + ' findings.';
    body.dataset.events = String(n);
    body.dataset.callLanes = String(D.calls.length);
    body.dataset.lanes = String(D.calls.length + 2);
    body.dataset.findings = String(D.findings.length);
    body.dataset.groups = String(D.groups.length);
    scope.paint();
    body.dataset.readyMs = String(Math.round(performance.now()));
    body.dataset.state = 'ready';

    function summary(D) {
      const S = D.session;
      const name = (S.server || 'server') + (S.server_version ? ' ' + S.server_version : '');
      $('title').textContent = name;
      const dl = $('summary');
      const sev = { error: 0, warning: 0, info: 0 };
      for (const f of D.findings) sev[f.severity] = (sev[f.severity] || 0) + 1;
      const put = (k, v) => {
        if (v === null || v === undefined || v === '') return;
        const d = el('div');
        d.append(el('dt', null, k), el('dd', null, v));
        dl.append(d);
      };
      put('server', name);
      put('revision', S.revision ? S.revision + (S.era ? ' (' + S.era + ')' : '') : null);
      put('transport', S.transport);
      put('target', S.target);
      put('recorded', S.started ? S.started + (S.recorded_as === 'proxy' ? ' by the proxy' : '') : null);
      put('length', dur(S.duration_us));
      put('events', S.events + ' (' + S.frames + ' frames)');
      put('calls', S.calls);
      put('progress', S.progress);
      put('logs', S.logs + (S.stderr ? ' + ' + S.stderr + ' stderr lines' : ''));
      put('findings', S.findings ? sev.error + ' errors · ' + sev.warning + ' warnings · ' + sev.info + ' info' : 'none');
    }

    function laneName(l) {
      if (l === 0) return 'session';
      if (l === 1) return 'logs';
      const c = D.calls[l - 2];
      return c ? (c.tool || c.method) + ' #' + c.id : '?';
    }

    function makeTimeline() {
      const rows = $('rows');
      const space = $('rows-space');
      const frame = $('frame');
      let view = null; // Int32Array of event indices, or null for all.
      let sel = -1; // An event index.
      const len = () => (view ? view.length : n);
      const at = (k) => (view ? view[k] : k);
      const scaled = () => len() * ROW > MAXH;
      function firstRow() {
        if (!scaled()) return Math.floor(rows.scrollTop / ROW);
        const vis = Math.ceil(rows.clientHeight / ROW);
        const maxS = Math.max(1, space.offsetHeight - rows.clientHeight);
        return Math.round((rows.scrollTop / maxS) * Math.max(0, len() - vis));
      }
      function scrollToRow(k) {
        const vis = Math.floor(rows.clientHeight / ROW);
        const first = firstRow();
        if (k >= first && k < first + vis) return;
        const want = Math.max(0, k - (k < first ? 0 : vis - 1));
        if (!scaled()) rows.scrollTop = want * ROW;
        else rows.scrollTop = (want / Math.max(1, len() - vis)) * (space.offsetHeight - rows.clientHeight);
      }
      function render() {
        space.style.height = Math.min(len() * ROW, MAXH) + 'px';
        const first = firstRow();
        const vis = Math.ceil(rows.clientHeight / ROW) + 1;
        const frag = document.createDocumentFragment();
        for (let k = first; k < Math.min(len(), first + vis); k++) {
          const i = at(k);
          const r = el('div', 'row');
          r.setAttribute('role', 'option');
          r.id = 'ev-' + SEQ[i];
          r.dataset.index = String(i);
          r.setAttribute('aria-selected', i === sel ? 'true' : 'false');
          r.style.top = (scaled() ? rows.scrollTop + (k - first) * ROW : k * ROW) + 'px';
          const f = flag.get(SEQ[i]);
          if (f) r.classList.add('flag-' + sevName[f]);
          const d = E.dir[i];
          const arrow = { o: '→', i: '←', e: '⚠', m: '·' }[d];
          r.append(
            el('span', 'seq', ('#' + SEQ[i]).padEnd(8)),
            el('span', 'seq', ('+' + dur(T[i])).padEnd(11)),
            el('span', 'dir-' + d, arrow + ' '),
            el('span', null, (labels[LABEL[i]] || E.kind[i]).padEnd(26) + ' '),
            el('span', 'seq', text(i, 160)),
          );
          frag.append(r);
        }
        space.replaceChildren(frag);
      }
      function open(i) {
        frame.replaceChildren();
        if (i < 0) return;
        const seq = SEQ[i];
        frame.append(el('h3', null, '#' + seq + '  +' + dur(T[i]) + '  ' + { o: 'sent', i: 'received', e: 'stderr', m: 'observed' }[E.dir[i]] + '  ' + (labels[LABEL[i]] || '') + '  lane: ' + laneName(LANE[i])));
        for (const k of citing.get(seq) || []) {
          const f = D.findings[k];
          const p = el('p', 'cites');
          const a = el('a', 'sev-' + f.severity, '⚠ ' + f.rule + ' (' + f.severity + ')');
          a.href = '#group-' + f.group;
          a.className += ' finding-link';
          a.dataset.group = String(f.group);
          p.append(a, document.createTextNode(': ' + f.message));
          frame.append(p);
        }
        let shown = text(i);
        try { shown = JSON.stringify(JSON.parse(shown), null, 2); } catch (_) { /* not JSON: as recorded */ }
        const pre = el('pre', null, shown);
        pre.id = 'frame-text';
        pre.dataset.seq = String(seq);
        frame.append(pre);
      }
      function select(i, reveal) {
        if (i < 0 || i >= n) return;
        sel = i;
        let k = i;
        if (view) {
          k = lowerBound(view, i);
          if (view[k] !== i) { view = null; $('search').value = ''; $('matches').textContent = ''; k = i; }
        }
        scrollToRow(k);
        render();
        open(i);
        rows.setAttribute('aria-activedescendant', 'ev-' + SEQ[i]);
        body.dataset.selectedSeq = String(SEQ[i]);
        if (reveal) $('timeline-view').scrollIntoView();
        scope.cursor(i);
      }
      rows.addEventListener('scroll', render, { passive: true });
      rows.addEventListener('click', (e) => {
        const r = e.target.closest('.row');
        if (r) select(Number(r.dataset.index));
      });
      rows.addEventListener('keydown', (e) => {
        const page = Math.max(1, Math.floor(rows.clientHeight / ROW) - 1);
        const k0 = sel < 0 ? -1 : view ? lowerBound(view, sel) : sel;
        const step = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page, Home: -Infinity, End: Infinity }[e.key];
        if (step === undefined || len() === 0) return;
        e.preventDefault();
        const k = Math.max(0, Math.min(len() - 1, k0 + step));
        select(at(k));
      });
      // Plain text, ASCII letters in any case, in the label or the frame.
      let pending = 0;
      $('search').addEventListener('input', () => {
        clearTimeout(pending);
        pending = setTimeout(() => search($('search').value), 150);
      });
      function search(q) {
        if (!q) { view = null; $('matches').textContent = ''; render(); return; }
        const needle = new TextEncoder().encode(q.toLowerCase());
        const m = needle.length;
        const hit = new Uint8Array(n);
        const ql = q.toLowerCase();
        const labelHit = labels.map((l) => l.toLowerCase().includes(ql));
        for (let i = 0; i < n; i++) if (labelHit[LABEL[i]]) hit[i] = 1;
        const first = needle[0];
        const firstUp = first >= 97 && first <= 122 ? first - 32 : first;
        let ev = 0;
        for (let p = 0; p + m <= raw.length; p++) {
          const b = raw[p];
          if (b !== first && b !== firstUp) continue;
          let k = 1;
          for (; k < m; k++) {
            let c = raw[p + k];
            if (c >= 65 && c <= 90) c += 32;
            if (c !== needle[k]) break;
          }
          if (k < m) continue;
          while (OFF[ev + 1] <= p) ev++;
          if (p + m <= OFF[ev + 1]) { hit[ev] = 1; p = OFF[ev + 1] - 1; }
        }
        let c = 0;
        for (let i = 0; i < n; i++) c += hit[i];
        view = new Int32Array(c);
        for (let i = 0, k = 0; i < n; i++) if (hit[i]) view[k++] = i;
        $('matches').textContent = c + ' of ' + n + ' events';
        rows.scrollTop = 0;
        render();
      }
      render();
      return { select, render };
    }

    function lowerBound(a, v) {
      let lo = 0, hi = a.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (a[mid] < v) lo = mid + 1; else hi = mid; }
      return lo;
    }

    function frameLink(seq) {
      const a = el('a', 'frame-link', '#' + seq);
      a.href = '#seq=' + seq;
      a.dataset.seq = String(seq);
      return a;
    }

    function makeFindings(D) {
      const box = $('groups');
      if (!D.groups.length) { box.append(el('p', 'hint', 'No findings: the session kept every rule mcpscope checks.')); return; }
      const MAX_LISTED = 50;
      D.groups.forEach((g, gi) => {
        const d = el('article', 'group');
        d.id = 'group-' + gi;
        d.dataset.rule = g.rule;
        const h = el('h3');
        h.append(el('span', 'sev-' + g.severity, g.rule + ' (' + g.severity + ')'), document.createTextNode(' ×' + g.count + (g.request_id ? ' · call #' + g.request_id : '') + ' · ' + g.party));
        d.append(h, el('p', null, g.message));
        const fix = el('p', 'fix');
        fix.append(el('strong', null, 'Fix: '), document.createTextNode(g.fix));
        d.append(fix, el('p', 'spec', g.spec));
        const ul = el('ul');
        for (const k of g.findings.slice(0, MAX_LISTED)) {
          const f = D.findings[k];
          const li = el('li');
          const frames = el('span', 'frames');
          for (const seq of f.seqs.slice(-8)) frames.append(frameLink(seq));
          li.append(frames, document.createTextNode(f.message));
          ul.append(li);
        }
        if (g.findings.length > MAX_LISTED) ul.append(el('li', 'hint', '… and ' + (g.findings.length - MAX_LISTED) + ' more of this cause'));
        d.append(ul);
        box.append(d);
      });
    }

    function makeCalls(D) {
      const tb = $('calls').tBodies[0];
      const MAX_ROWS = 5000;
      const frag = document.createDocumentFragment();
      for (const c of D.calls.slice(0, MAX_ROWS)) {
        const tr = el('tr');
        tr.dataset.call = c.id;
        const num = (v) => el('td', 'num', v);
        const frames = el('td');
        frames.append(frameLink(c.request_seq));
        if (c.response_seq !== null && c.response_seq !== undefined) { frames.append(document.createTextNode('→ ')); frames.append(frameLink(c.response_seq)); }
        tr.append(
          el('td', null, (c.tool || c.method) + ' #' + c.id),
          el('td', null, c.outcome || '–'),
          num(ms(c.duration_ms)),
          num(c.notifications === undefined ? '–' : c.notifications),
          num(ms(c.first_progress_ms)),
          num(ms(c.gap_ms)),
          num(c.per_second === null || c.per_second === undefined ? '–' : c.per_second.toFixed(1) + '/s'),
          frames,
        );
        frag.append(tr);
      }
      tb.append(frag);
      if (D.calls.length > MAX_ROWS) {
        const tr = el('tr');
        const td = el('td', 'hint', '… and ' + (D.calls.length - MAX_ROWS) + ' more calls (all are on the Scope)');
        td.colSpan = 8;
        tr.append(td);
        tb.append(tr);
      }
    }

    function makeScope() {
      const cv = $('scope');
      const ctx = cv.getContext('2d');
      const lanes = D.calls.length + 2;
      // Each lane's top (px, before scrolling) and height.
      const top = new Float64Array(lanes + 1);
      for (let l = 0; l < lanes; l++) {
        const c = l >= 2 ? D.calls[l - 2] : null;
        const spanRows = c && c.spans ? Math.min(c.spans.length, MAX_SPAN_ROWS) : 0;
        top[l + 1] = top[l] + LANE_H + spanRows * SPAN_H + (spanRows ? 3 : 0);
      }
      // As tall as its lanes, up to a screenful.
      cv.style.height = Math.max(90, Math.min(420, AXIS_H + top[lanes] + 4)) + 'px';
      let v0 = -total * 0.01, v1 = total * 1.01; // The visible time range, µs.
      let vy = 0; // Lanes scrolled past, px.
      let cur = -1;
      let css = null;
      const colour = (name) => css.getPropertyValue(name).trim() || '#888';
      const plotW = () => Math.max(10, cv.clientWidth - LABEL_W);
      const xOf = (us) => LABEL_W + ((us - v0) / (v1 - v0)) * plotW();
      const usOf = (x) => v0 + ((x - LABEL_W) / plotW()) * (v1 - v0);
      const laneAt = (y) => {
        const want = y - AXIS_H + vy;
        if (want < 0) return -1;
        const k = lowerBound(top, want + 0.0001) - 1;
        return k >= 0 && k < lanes ? k : -1;
      };
      cv.dataset.lanes = String(lanes);
      cv.dataset.callLanes = String(D.calls.length);
      cv.dataset.spans = String(D.calls.reduce((a, c) => a + (c.spans ? c.spans.length : 0), 0));
      const clampY = () => { vy = Math.max(0, Math.min(vy, top[lanes] - (cv.clientHeight - AXIS_H))); };
      let queued = false;
      function draw() {
        if (queued) return;
        queued = true;
        requestAnimationFrame(() => { queued = false; paint(); });
      }
      function paint() {
        css = getComputedStyle(document.documentElement);
        const dpr = window.devicePixelRatio || 1;
        const W = cv.clientWidth, H = cv.clientHeight;
        if (cv.width !== Math.round(W * dpr) || cv.height !== Math.round(H * dpr)) { cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr); }
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.fillStyle = colour('--panel');
        ctx.fillRect(0, 0, W, H);
        ctx.font = '11px system-ui, sans-serif';
        ctx.textBaseline = 'middle';
        const fg = colour('--fg'), muted = colour('--muted'), line = colour('--line');
        // Lanes in sight.
        const l0 = Math.max(0, lowerBound(top, vy) - 1);
        let l1 = l0;
        while (l1 < lanes && top[l1] < vy + H - AXIS_H) l1++;
        const yOf = (l) => AXIS_H + top[l] - vy;
        ctx.save();
        ctx.beginPath();
        ctx.rect(0, AXIS_H, W, H - AXIS_H);
        ctx.clip();
        for (let l = l0; l < l1; l++) {
          const y = yOf(l);
          ctx.fillStyle = l % 2 ? colour('--panel') : colour('--bg');
          ctx.fillRect(0, y, W, top[l + 1] - top[l]);
          if (l >= 2) {
            const c = D.calls[l - 2];
            const bad = c.outcome && c.outcome !== 'ok';
            ctx.fillStyle = colour('--bar');
            const xa = Math.max(LABEL_W, xOf(c.start_us)), xb = Math.min(W, Math.max(xOf(c.end_us), xOf(c.start_us) + 2));
            if (xb > LABEL_W) ctx.fillRect(xa, y + 6, Math.max(1, xb - xa), LANE_H - 12);
            if (bad && xb > LABEL_W) { ctx.strokeStyle = colour('--error'); ctx.strokeRect(xa + 0.5, y + 6.5, Math.max(1, xb - xa - 1), LANE_H - 13); }
            if (c.spans) {
              c.spans.slice(0, MAX_SPAN_ROWS).forEach((sp, k) => {
                const sy = y + LANE_H + k * SPAN_H;
                const a = Math.max(LABEL_W, xOf(sp.start_us)), b = Math.min(W, Math.max(xOf(sp.end_us), a + 1));
                if (b <= LABEL_W) return;
                ctx.fillStyle = sp.error ? colour('--spanerr') : colour('--span');
                ctx.fillRect(a, sy + 1, b - a, SPAN_H - 2);
              });
            }
          }
        }
        // Events in sight, at most one mark per lane and pixel column.
        const lo = lowerBound(TMAX, v0);
        const hi = lowerBound(TMIN, v1 + 1e-9);
        const last = new Int32Array(lanes).fill(-1);
        const lvl = { '0': muted, '1': colour('--info'), '2': colour('--accent'), '3': colour('--warning'), s: muted };
        const tick = colour('--tick');
        for (let i = lo; i < Math.min(hi, n); i++) {
          const l = LANE[i];
          if (l < l0 || l >= l1) continue;
          const x = Math.floor(xOf(T[i]));
          if (x < LABEL_W || x >= W || last[l] === x) continue;
          last[l] = x;
          const y = yOf(l);
          if (l === 1) {
            ctx.fillStyle = lvl[E.level[i]] || colour('--error');
            ctx.fillRect(x, y + 5, 2, LANE_H - 10);
          } else if (LABEL[i] === progressLabel) {
            ctx.fillStyle = tick;
            ctx.fillRect(x, y + 3, 1, LANE_H - 6);
          } else {
            ctx.fillStyle = E.dir[i] === 'o' ? fg : muted;
            ctx.fillRect(x, y + 8, 2, LANE_H - 16);
          }
        }
        // Findings: a triangle over the frame that broke the rule.
        for (const f of D.findings) {
          const i = indexOfSeq(f.seqs[f.seqs.length - 1]);
          if (i < 0) continue;
          const l = LANE[i];
          if (l < l0 || l >= l1) continue;
          const x = xOf(T[i]);
          if (x < LABEL_W || x > W) continue;
          const y = yOf(l);
          ctx.fillStyle = colour('--' + f.severity);
          ctx.beginPath();
          ctx.moveTo(x - 4, y + 1); ctx.lineTo(x + 4, y + 1); ctx.lineTo(x, y + 8);
          ctx.fill();
        }
        if (cur >= 0) {
          const x = xOf(T[cur]);
          if (x >= LABEL_W && x <= W) { ctx.fillStyle = colour('--accent'); ctx.fillRect(Math.floor(x), AXIS_H, 1, H - AXIS_H); }
        }
        // Labels over the left column.
        ctx.fillStyle = colour('--panel');
        ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
        for (let l = l0; l < l1; l++) {
          const y = yOf(l);
          ctx.fillStyle = l >= 2 ? fg : muted;
          let name = laneName(l);
          if (name.length > 30) name = name.slice(0, 29) + '…';
          ctx.fillText(name, 6, y + LANE_H / 2);
          ctx.fillStyle = line;
          ctx.fillRect(0, y + top[l + 1] - top[l] - 1, W, 1);
        }
        ctx.restore();
        // The time axis.
        ctx.fillStyle = colour('--bg');
        ctx.fillRect(0, 0, W, AXIS_H);
        ctx.fillStyle = line;
        ctx.fillRect(0, AXIS_H - 1, W, 1);
        const span = v1 - v0;
        const rough = span / Math.max(1, plotW() / 90);
        const p10 = Math.pow(10, Math.floor(Math.log10(rough)));
        const step = [1, 2, 5, 10].map((k) => k * p10).find((k) => k >= rough) || p10 * 10;
        ctx.fillStyle = muted;
        for (let u = Math.ceil(v0 / step) * step; u <= v1; u += step) {
          const x = xOf(u);
          if (x < LABEL_W) continue;
          ctx.fillRect(Math.floor(x), AXIS_H - 5, 1, 5);
          ctx.fillText(dur(u), x + 3, AXIS_H / 2);
        }
        ctx.fillText(dur(span) + ' in view', 6, AXIS_H / 2);
      }
      function zoom(factor, x) {
        const at = usOf(x === undefined ? LABEL_W + plotW() / 2 : Math.max(LABEL_W, x));
        const w = Math.min(total * 4, Math.max(5, (v1 - v0) * factor));
        const k = (at - v0) / (v1 - v0);
        v0 = at - k * w; v1 = v0 + w;
        draw();
      }
      function pan(frac) { const w = v1 - v0; v0 += w * frac; v1 += w * frac; draw(); }
      function fit() { v0 = -total * 0.01; v1 = total * 1.01; vy = 0; draw(); }
      cv.addEventListener('wheel', (e) => {
        e.preventDefault();
        if (e.shiftKey) { vy += e.deltaY; clampY(); draw(); return; }
        zoom(Math.exp(e.deltaY * 0.002), e.offsetX);
      }, { passive: false });
      let drag = null;
      cv.addEventListener('pointerdown', (e) => { drag = { x: e.offsetX, y: e.offsetY, v0, v1, vy, moved: false }; cv.setPointerCapture(e.pointerId); });
      cv.addEventListener('pointermove', (e) => {
        if (drag) {
          const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
          if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
          if (drag.moved) {
            const du = (dx / plotW()) * (drag.v1 - drag.v0);
            v0 = drag.v0 - du; v1 = drag.v1 - du; vy = drag.vy - dy; clampY(); draw();
          }
        }
        const l = laneAt(e.offsetY);
        $('readout').textContent = e.offsetX >= LABEL_W && l >= 0 ? '+' + dur(usOf(e.offsetX)) + '  ' + laneName(l) : '';
      });
      cv.addEventListener('pointerup', (e) => {
        const d = drag;
        drag = null;
        if (!d || d.moved) return;
        const l = laneAt(e.offsetY);
        if (l < 0 || e.offsetX < LABEL_W) return;
        // The nearest event of that lane within a few pixels.
        const slack = (6 / plotW()) * (v1 - v0);
        const want = usOf(e.offsetX);
        let best = -1, bd = Infinity;
        for (let i = lowerBound(TMAX, want - slack); i < Math.min(n, lowerBound(TMIN, want + slack + 1e-9)); i++) {
          if (LANE[i] !== l) continue;
          const dd = Math.abs(T[i] - want);
          if (dd <= slack && dd < bd) { bd = dd; best = i; }
        }
        if (best >= 0) timeline.select(best, false);
      });
      cv.addEventListener('keydown', (e) => {
        const k = e.key;
        if (k === '+' || k === '=' || k === 'w') zoom(0.5);
        else if (k === '-' || k === 's') zoom(2);
        else if (k === 'ArrowLeft' || k === 'a') pan(-0.25);
        else if (k === 'ArrowRight' || k === 'd') pan(0.25);
        else if (k === 'ArrowUp') { vy -= LANE_H * 3; clampY(); draw(); }
        else if (k === 'ArrowDown') { vy += LANE_H * 3; clampY(); draw(); }
        else if (k === '0') fit();
        else return;
        e.preventDefault();
      });
      window.addEventListener('resize', draw);
      matchMedia('(prefers-color-scheme: dark)').addEventListener('change', draw);
      return { draw, paint, cursor(i) { cur = i; draw(); } };
    }
  }

  main().catch((e) => {
    body.dataset.state = 'error';
    $('status').textContent = 'This page could not open the session: ' + e;
  });
})();
