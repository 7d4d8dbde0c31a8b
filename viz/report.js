/*
 * report.js -- the HTML report's one inline script (viz/report.c embeds
 * it at build time): hover shows a value with its unit, a legend entry
 * hides its series, a drag zooms a line chart on an x range (a double
 * click or "reset zoom" undoes it).  It reads each line chart's data
 * from the JSON report.c writes beside it and draws the chart's lines
 * from it, whole or zoomed: the page carries each series once, not as
 * data and again as a drawing (a third of a 5-policy report's bytes).
 * Without it a line chart shows its frame, spans and legend but no
 * line (a <noscript> note says report.pdf has them); bar charts and
 * maps are whole.  No library, no fetch: the report stays one file
 * that works offline.
 */
(function () {
  'use strict';
  var NS = null;
  function el(tag, at, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in at) e.setAttribute(k, at[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  /* Three significant digits, no trailing zeros: 707, 12.5, 0.123. */
  function fmt(v) {
    return Math.abs(v) >= 100 ? v.toFixed(0) : String(+v.toPrecision(3));
  }
  function nice(x) {
    var e = Math.floor(Math.log(x) / Math.LN10), f = x / Math.pow(10, e);
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * Math.pow(10, e);
  }
  function ticks(lo, hi, max, log) {
    var t = [], v;
    if (log) {
      for (var e = Math.floor(Math.log(lo) / Math.LN10);
           e <= Math.ceil(Math.log(hi) / Math.LN10); e++)
        [1, 2, 5].forEach(function (m) {
          v = m * Math.pow(10, e);
          if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push(v);
        });
      return t.length > max ? t.filter(function (x) {
        return Math.abs(Math.log(x) / Math.LN10 -
                        Math.round(Math.log(x) / Math.LN10)) < 1e-9;
      }) : t;
    }
    var st = nice((hi - lo) / Math.max(max, 2));
    for (v = Math.ceil(lo / st - 1e-9) * st; v <= hi + st * 1e-9; v += st)
      t.push(+v.toPrecision(12));
    return t;
  }
  function showTip(fig, tip, html, e) {
    var r = fig.getBoundingClientRect();
    tip.innerHTML = html;
    tip.hidden = false;
    var x = e.clientX - r.left + 14;
    if (x + tip.offsetWidth > r.width) x = e.clientX - r.left - 14 - tip.offsetWidth;
    tip.style.left = x + 'px';
    tip.style.top = (e.clientY - r.top + 14) + 'px';
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c];
    });
  }
  function userPoint(svg, w, h, e) {
    var r = svg.getBoundingClientRect();
    return [(e.clientX - r.left) * w / r.width, (e.clientY - r.top) * h / r.height];
  }
  function regions(fig) {
    var ui = fig.querySelector('svg.sbc-ui'), tip = fig.querySelector('.sbc-tip');
    ui.addEventListener('mousemove', function (e) {
      var t = e.target.getAttribute && e.target.getAttribute('data-tip');
      if (t) showTip(fig, tip, esc(t), e); else tip.hidden = true;
    });
    ui.addEventListener('mouseleave', function () { tip.hidden = true; });
  }
  function lines(fig) {
    var d = JSON.parse(fig.querySelector('script.sbc-data').textContent);
    /* A series' x given as a number is that earlier series' x. */
    d.series.forEach(function (s) {
      if (typeof s.x === 'number') s.x = d.series[s.x].x;
    });
    var ui = fig.querySelector('svg.sbc-ui'), tip = fig.querySelector('.sbc-tip');
    var buttons = fig.querySelectorAll('.sbc-legend button[data-s]');
    var reset = fig.querySelector('.sbc-reset');
    var P = d.plot, F = d.font, hidden = [], zoom = null, drag = null;
    var g = el('g', {'class': 'sbc-lines'}, ui);
    var cross = el('line', {stroke: '#282828', 'stroke-width': 0.6,
                            'stroke-dasharray': '3 2', visibility: 'hidden'}, ui);
    var sel = el('rect', {fill: 'rgba(0,114,178,0.15)', stroke: '#0072b2',
                          'stroke-width': 0.6, visibility: 'hidden'}, ui);
    function range() { return zoom || d.x; }
    function sx(v) {
      var a = range()[0], b = range()[1];
      return d.xlog ? P[0] + Math.log(v / a) / Math.log(b / a) * P[2]
                    : P[0] + (v - a) / (b - a) * P[2];
    }
    function unx(px) {
      var a = range()[0], b = range()[1], t = (px - P[0]) / P[2];
      return d.xlog ? a * Math.pow(b / a, t) : a + t * (b - a);
    }
    function sl(v) { return v < 0 ? -Math.log10(1 - v) : Math.log10(1 + v); }
    function sy(v) {
      var a = d.y[0], b = d.y[1];
      if (d.ysymlog)
        return P[1] + P[3] - (sl(v) - sl(a)) / (sl(b) - sl(a)) * P[3];
      return d.ylog ? P[1] + P[3] - Math.log(v / a) / Math.log(b / a) * P[3]
                    : P[1] + P[3] - (v - a) / (b - a) * P[3];
    }
    function ok(x, y) {
      return typeof y === 'number' && typeof x === 'number' &&
        (!d.ylog || y > 0) && (!d.xlog || x > 0);
    }
    function path(s, ys, back) {
      var p = '', pen = false, n = s.x.length;
      for (var j = 0; j < n; j++) {
        var i = back ? n - 1 - j : j;
        if (!ok(s.x[i], ys[i])) { pen = false; continue; }
        p += (pen ? 'L' : 'M') + sx(s.x[i]).toFixed(2) + ' ' + sy(ys[i]).toFixed(2);
        pen = true;
      }
      return p;
    }
    /* One polygon per run of points with both ends, along hi and back
     * along lo (chart.c's chart_panel_band). */
    function band(s) {
      var p = '', run = [];
      function flush() {
        if (run.length) {
          p += 'M' + run.map(function (i) {
            return sx(s.x[i]).toFixed(2) + ' ' + sy(s.hi[i]).toFixed(2);
          }).join('L') + 'L' + run.reverse().map(function (i) {
            return sx(s.x[i]).toFixed(2) + ' ' + sy(s.lo[i]).toFixed(2);
          }).join('L') + 'Z';
        }
        run = [];
      }
      for (var i = 0; i < s.x.length; i++)
        if (ok(s.x[i], s.lo[i]) && ok(s.x[i], s.hi[i])) run.push(i); else flush();
      flush();
      return p;
    }
    /* The lines are drawn here, from the data, whole or zoomed: the
     * page carries each series once (report.c writes no layer of its
     * own for them).  As chart.c draws them: every band first, then each
     * line with its points, the rings of points that stand for only
     * some seeds, and the never marks on the top edge. */
    function draw() {
      while (g.firstChild) g.removeChild(g.firstChild);
      if (reset) reset.hidden = !zoom;
      if (zoom) el('rect', {x: P[0] - 1, y: P[1] - 1, width: P[2] + 2,
                            height: P[3] + F * 1.6, fill: '#fff'}, g);
      var c = el('g', {'clip-path': 'url(#' + fig.id + '-clip)'}, g);
      if (zoom) {
        var yt = d.ysymlog ? [0, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
          1e9].filter(function (t) { /* as chart.c: 1.1 lines apart */
          return t <= d.y[1] && (t === 0 || sy(0) - sy(t) >= F * 1.1 ||
                                 t > 1);
        }) : ticks(d.y[0], d.y[1], P[3] / (F * 2.2), d.ylog);
        var xt = ticks(zoom[0], zoom[1], P[2] / (F * 5), d.xlog);
        yt.forEach(function (v) {
          el('line', {x1: P[0], x2: P[0] + P[2], y1: sy(v), y2: sy(v),
                      stroke: 'rgba(40,40,40,0.12)'}, c);
        });
        xt.forEach(function (v) {
          el('line', {x1: sx(v), x2: sx(v), y1: P[1], y2: P[1] + P[3],
                      stroke: 'rgba(40,40,40,0.12)'}, c);
          var t = el('text', {x: sx(v), y: P[1] + P[3] + F * 1.1,
                              'text-anchor': 'middle', 'font-size': F * 0.85,
                              fill: '#282828', 'class': 'sbc-tick'}, g);
          t.textContent = String(+v.toPrecision(6));
        });
        d.spans.forEach(function (s) {
          el('rect', {x: sx(s[0]), y: P[1], width: Math.max(sx(s[1]) - sx(s[0]), 0),
                      height: P[3], fill: 'rgba(213,94,0,0.13)'}, c);
        });
      }
      var w = 2 * F / 12;
      d.series.forEach(function (s, k) {
        if (!hidden[k] && s.lo)
          el('path', {d: band(s), fill: s.colour, 'fill-opacity': 0.25,
                      'data-s': k}, c);
      });
      d.series.forEach(function (s, k) {
        if (hidden[k]) return;
        el('path', {d: path(s, s.y, false), fill: 'none', stroke: s.colour,
                    'stroke-width': w, 'stroke-linejoin': 'bevel',
                    'stroke-linecap': s.dash === 2 ? 'round' : 'butt',
                    'class': 'sbc-line', 'data-s': k,
                    'stroke-dasharray': s.dash === 1 ? 5 * w + ' ' + 3 * w :
                      s.dash === 2 ? w + ' ' + 2.5 * w : 'none'}, c);
        s.y.forEach(function (y, i) {
          if (ok(s.x[i], y) && s.points)
            el('circle', {cx: sx(s.x[i]), cy: sy(y), r: Math.max(1.5, w * 1.5),
                          fill: s.colour, 'data-s': k}, c);
          if (ok(s.x[i], y) && s.notes && s.notes[i])
            el('circle', {cx: sx(s.x[i]), cy: sy(y), r: F * 0.5, fill: 'none',
                          stroke: '#282828', 'stroke-width': F / 10,
                          'data-s': k}, c);
          if (y !== 'inf') return;
          var x = sx(s.x[i]), r = F * 0.45, t = P[1] + r * 0.9;
          el('path', {d: 'M' + x + ' ' + (t - r * 0.9) + 'L' + (x + r) + ' ' + (t + r * 0.8) +
                      'L' + (x - r) + ' ' + (t + r * 0.8) + 'Z', fill: s.colour,
                      stroke: '#282828', 'stroke-width': F / 14, 'data-s': k}, c);
        });
      });
      if (zoom)
        el('rect', {x: P[0] + 0.5, y: P[1] + 0.5, width: P[2] - 1, height: P[3] - 1,
                    fill: 'none', stroke: '#282828'}, g);
    }
    function hover(e) {
      var u = userPoint(ui, d.w, d.h, e);
      if (drag) {
        var a = Math.max(Math.min(drag, u[0]), P[0]);
        var b = Math.min(Math.max(drag, u[0]), P[0] + P[2]);
        sel.setAttribute('x', a); sel.setAttribute('width', Math.max(b - a, 0));
        sel.setAttribute('y', P[1]); sel.setAttribute('height', P[3]);
        sel.setAttribute('visibility', 'visible');
      }
      if (u[0] < P[0] || u[0] > P[0] + P[2] || u[1] < P[1] || u[1] > P[1] + P[3]) {
        tip.hidden = true; cross.setAttribute('visibility', 'hidden'); return;
      }
      var rows = '', at = null;
      d.series.forEach(function (s, k) {
        if (hidden[k]) return;
        var best = -1, bd = Infinity;
        for (var i = 0; i < s.x.length; i++) {
          if (typeof s.x[i] !== 'number' || (d.xlog && s.x[i] <= 0)) continue;
          var dd = Math.abs(sx(s.x[i]) - u[0]);
          if (dd < bd) { bd = dd; best = i; }
        }
        if (best < 0) return;
        if (at === null) at = s.x[best];
        var y = s.y[best];
        var v = y === 'inf' ? esc(d.never) : typeof y === 'number' ?
          fmt(y) + ' ' + esc(d.yunit) : 'no value';
        rows += '<div><span class="sbc-sw" style="background:' + s.colour +
          '"></span>' + esc(s.label) + ': <b>' + v + '</b>' +
          (s.notes && s.notes[best] ? ' (' + esc(s.notes[best]) + ')' : '') +
          (d.xlog ? ' at ' + fmt(s.x[best]) + ' ' + esc(d.xunit) : '') + '</div>';
      });
      if (at === null) { tip.hidden = true; return; }
      var cx = d.xlog ? u[0] : sx(at);
      cross.setAttribute('x1', cx); cross.setAttribute('x2', cx);
      cross.setAttribute('y1', P[1]); cross.setAttribute('y2', P[1] + P[3]);
      cross.setAttribute('visibility', 'visible');
      var head = d.xunit ? fmt(at) + ' ' + esc(d.xunit) :
        esc(d.xname) + ' ' + fmt(at);
      showTip(fig, tip, (d.xlog ? '' : '<div>' + head + '</div>') + rows, e);
    }
    ui.addEventListener('mousemove', hover);
    ui.addEventListener('mouseleave', function () {
      tip.hidden = true; cross.setAttribute('visibility', 'hidden');
    });
    ui.addEventListener('mousedown', function (e) {
      var u = userPoint(ui, d.w, d.h, e);
      if (u[0] >= P[0] && u[0] <= P[0] + P[2]) { drag = u[0]; e.preventDefault(); }
    });
    ui.addEventListener('mouseup', function (e) {
      if (drag === null) return;
      var u = userPoint(ui, d.w, d.h, e), a = Math.min(drag, u[0]), b = Math.max(drag, u[0]);
      drag = null; sel.setAttribute('visibility', 'hidden');
      a = Math.max(a, P[0]); b = Math.min(b, P[0] + P[2]);
      if (b - a < 4) return;
      zoom = [unx(a), unx(b)];
      draw();
    });
    ui.addEventListener('dblclick', function () { zoom = null; draw(); });
    if (reset) reset.addEventListener('click', function () { zoom = null; draw(); });
    for (var k = 0; k < buttons.length; k++)
      buttons[k].addEventListener('click', function () {
        var i = +this.getAttribute('data-s');
        hidden[i] = !hidden[i];
        this.setAttribute('aria-pressed', hidden[i] ? 'false' : 'true');
        draw();
      });
    fig.sbcZoom = function () { return zoom; };
    draw();
  }
  /* The test hook (report.h): with #sb-test in the URL, every chart is
   * hovered at its plot's middle; a line chart's first legend entry is
   * clicked and the middle half of its x range zoomed by a drag.  What
   * each showed is written as JSON into <pre id="sb-test">. */
  function selfTest(figs) {
    var out = [];
    figs.forEach(function (fig) {
      var ui = fig.querySelector('svg.sbc-ui'), tip = fig.querySelector('.sbc-tip');
      var r = ui.getBoundingClientRect(), vb = ui.viewBox.baseVal;
      var data = fig.querySelector('script.sbc-data');
      var P = data ? JSON.parse(data.textContent).plot : null;
      var res = {kind: data ? 'lines' : 'regions'};
      function at(ux, uy) {
        return {clientX: r.left + ux * r.width / vb.width,
                clientY: r.top + uy * r.height / vb.height, bubbles: true};
      }
      var target = ui;
      var mid = P ? at(P[0] + P[2] / 2, P[1] + P[3] / 2) : null;
      if (!P) {
        target = ui.querySelector('[data-tip]');
        var b = target.getBBox();
        mid = at(b.x + b.width / 2, b.y + b.height / 2);
      }
      target.dispatchEvent(new MouseEvent('mousemove', mid));
      res.tip = tip.hidden ? null : tip.textContent;
      if (P) {
        /* The lines the script drew, and the points of the first. */
        var drawn = fig.querySelectorAll('.sbc-lines path.sbc-line');
        res.lines = drawn.length;
        res.points0 = drawn.length ?
          drawn[0].getAttribute('d').split(/[ML]/).length - 1 : 0;
        var btn = fig.querySelector('.sbc-legend button[data-s]');
        btn.click();
        res.hidden0 = !fig.querySelector('.sbc-lines [data-s="0"]');
        res.lines1 = fig.querySelectorAll('.sbc-lines path.sbc-line').length;
        res.pressed0 = btn.getAttribute('aria-pressed');
        ui.dispatchEvent(new MouseEvent('mousedown', at(P[0] + P[2] / 4, P[1] + P[3] / 2)));
        ui.dispatchEvent(new MouseEvent('mouseup', at(P[0] + P[2] * 3 / 4, P[1] + P[3] / 2)));
        res.zoom = fig.sbcZoom();
        res.ticks = fig.querySelectorAll('.sbc-tick').length;
        res.paths = fig.querySelectorAll('.sbc-lines path').length;
        ui.dispatchEvent(new MouseEvent('mousemove', mid));
        res.tipZoomed = tip.hidden ? null : tip.textContent;
      }
      out.push(res);
    });
    /* Whether the page scrolls sideways (a wide table must not make it). */
    var root = document.documentElement;
    out.push({kind: 'page', overflowX: root.scrollWidth > root.clientWidth});
    var pre = document.createElement('pre');
    pre.id = 'sb-test';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  var figs = [].slice.call(document.querySelectorAll('figure.sbc'));
  figs.forEach(function (fig) {
    NS = fig.querySelector('svg.sbc-ui').namespaceURI;
    if (fig.querySelector('script.sbc-data')) lines(fig); else regions(fig);
  });
  if (location.hash === '#sb-test') selfTest(figs);
})();
