/**
 * A tiny inline trend line (SVG, no axes) for tables: drawing dozens of full charts in a jobs
 * list would cost more than the list itself. The label says what it shows, for screen readers.
 */
export function Sparkline({ values, label, width = 90, height = 22 }: { values: number[]; label: string; width?: number; height?: number }) {
  if (values.length === 0) return <span className="muted-text">–</span>;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const span = max - min || 1;
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - ((v - min) / span) * (height - 4)).toFixed(1)}`).join(' ');
  return (
    <svg width={width} height={height} role="img" aria-label={label} className="sparkline">
      <polyline points={values.length > 1 ? points : `0,${height / 2} ${width},${height / 2}`} fill="none" stroke="currentColor" strokeWidth={1.5} />
    </svg>
  );
}
