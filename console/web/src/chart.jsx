// Hand-rolled SVG bar charts: no chart library to ship or keep up to date.
// Each chart has a title and a description for screen readers, and the page
// also shows the same figures in a table.

const fmt = (n) => (Math.round(n * 10) / 10).toLocaleString('en');

// BarChart draws one row per item with stacked (or grouped) segments.
// series: [{key, name, color}]; items: [{label, values: {key: number}}].
export function BarChart({ id, title, desc, series, items, stacked = true, unit = '' }) {
  const rowH = stacked ? 40 : 20 * series.length + 16;
  const labelW = 64, width = 440, right = 44, top = 8;
  const height = top + rowH * items.length + 26;
  const totals = items.map((it) => (stacked
    ? series.reduce((s, se) => s + (it.values[se.key] || 0), 0)
    : Math.max(0, ...series.map((se) => it.values[se.key] || 0))));
  const max = Math.max(1, ...totals);
  const plotW = width - labelW - right;
  const x = (v) => (v / max) * plotW;
  return (
    <figure class="chart" data-chart={id}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={labelW + f * plotW} x2={labelW + f * plotW} y1={top - 4} y2={height - 22} stroke="#c9cfd6" />
            <text x={labelW + f * plotW} y={height - 6} font-size="13" text-anchor="middle" fill="#4a5058">
              {fmt(f * max)}{unit}
            </text>
          </g>
        ))}
        {items.map((it, i) => {
          const y = top + i * rowH;
          let acc = 0;
          return (
            <g key={it.label} class="bar-row">
              <text x={labelW - 8} y={y + rowH / 2} font-size="15" font-weight="600" text-anchor="end"
                dominant-baseline="middle" fill="#1a1c1e">{it.label}</text>
              {series.map((se, j) => {
                const v = it.values[se.key] || 0;
                const bx = stacked ? labelW + x(acc) : labelW;
                const by = stacked ? y + 5 : y + 8 + j * 20;
                const bh = stacked ? rowH - 10 : 16;
                acc += v;
                return (
                  <rect key={se.key} class="bar" data-series={se.key} x={bx} y={by} width={Math.max(v > 0 ? 1.5 : 0, x(v))}
                    height={bh} fill={se.color}>
                    <title>{`${it.label} ${se.name}: ${fmt(v)}${unit}`}</title>
                  </rect>
                );
              })}
              <text x={labelW + x(totals[i]) + 6} y={y + rowH / 2} font-size="14" dominant-baseline="middle" fill="#1a1c1e">
                {stacked ? fmt(totals[i]) + unit : ''}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption class="legend">
        {series.map((se) => <span key={se.key} style={{ '--c': se.color }}>{se.name}</span>)}
      </figcaption>
    </figure>
  );
}
