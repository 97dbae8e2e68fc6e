'use client';
/**
 * The job page's charts over its batch history: input rate against processing rate, batch
 * duration by phase, input rows per batch, state rows (total, updated, removed, late rows dropped), state bytes
 * (memory, disk), an lmdb job's LMDB figures (local bytes, changelog bytes, stores rebuilt), commit
 * lag and watermark gap, and a several-source job's input rows and commit lag per source and, with
 * several watermarks, each source's own watermark gap beside the global one. Data comes downsampled by the server (at most
 * 300 points whatever the history), refreshed every few seconds while the job runs; the time
 * range picker narrows the window. Animations are off: a chart that re-animates on every refresh
 * is harder to read and costs the main thread.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useState, type ReactNode } from 'react';
import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { BatchCharts as BatchChartsData } from '@/lib/server/presenters/batch-chart-presenter';
import { apiFetch, errorMessage } from './api-client';
import { CHART_COLORS, chartsUrl, dotted, inputRowsSeries, lagSeries, lmdbSeries, PHASE_ORDER, phaseSeries, rateSeries, seriesPresence, sourceSeries, sourceWatermarkSeries, stateBytesSeries, stateRowsSeries, TIME_RANGES, type SeriesRow } from './chart-series';
import { formatBytes, formatNumber, plural } from './format';
import { queryKeys } from './query-keys';

const COLORS = CHART_COLORS;
const STATE_NOTE = 'No state to draw: this query keeps none (no aggregation, deduplication or streaming limit), or has not kept any yet in this range.';
const timeTick = (t: number) => new Date(t).toISOString().slice(11, 19);

/**
 * Charts are drawn one per task, in page order, rather than all in one render: the first chart
 * is on screen (and the page answers input) after a sixth of the work, instead of the browser
 * freezing until all six are laid out (recharts costs tens of ms per chart on a slow laptop).
 */
function useStagger(count: number): number {
  const [shown, setShown] = useState(1);
  useEffect(() => {
    if (shown >= count) return;
    const t = setTimeout(() => setShown((n) => n + 1), 0);
    return () => clearTimeout(t);
  }, [shown, count]);
  return shown;
}

/**
 * The panel measures its own width (and follows resizes) and hands it to the chart, instead of
 * recharts' ResponsiveContainer, which renders nothing until its ResizeObserver fires: all six
 * would then draw in the same frame and undo the staggering.
 */
function useWidth(): [(el: HTMLDivElement | null) => void, number] {
  const [el, setEl] = useState<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    if (!el) return;
    setWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    return () => ro.disconnect();
  }, [el]);
  return [setEl, width];
}

const CHART_HEIGHT = 220;

const GRID = 'var(--chart-grid)';

/** `note`: said instead of a chart with nothing to draw; `caption`: said above the chart, how to read it. */
function ChartPanel({ title, children, empty, order, shown, note, caption }: { title: string; children: (width: number) => ReactNode; empty: boolean; order: number; shown: number; note?: string; caption?: ReactNode }) {
  const id = useId();
  const [ref, width] = useWidth();
  return (
    <section className="panel" aria-labelledby={id}>
      <h2 id={id} className="as-h3">
        {title}
      </h2>
      {empty ? (
        <p className="muted-text small">No batches in this range.</p>
      ) : note ? (
        <p className="muted-text small chart-note">{note}</p>
      ) : (
        <>
          {caption && <p className="small muted-text">{caption}</p>}
          <div className="chart-box" role="img" aria-label={title} ref={ref}>
            {order < shown && width > 0 ? children(width) : null}
          </div>
        </>
      )}
    </section>
  );
}

/** A bar's widest, in pixels: with few batches recharts would make each bar a third of the chart. */
const BAR_MAX_WIDTH = 24;

function axes(format: (v: number) => string = (v) => formatNumber(v), bars = false) {
  return [
    <CartesianGrid key="g" strokeDasharray="3 3" stroke={GRID} />,
    // Bars are centred on their time: pad the axis by more than half a bar (BAR_MAX_WIDTH) so the
    // first and last are neither cut in half nor drawn over the Y axis's labels.
    <XAxis key="x" dataKey="t" type="number" domain={['dataMin', 'dataMax']} scale="time" tickFormatter={timeTick} fontSize={11} padding={bars ? { left: BAR_MAX_WIDTH, right: BAR_MAX_WIDTH } : undefined} />,
    <YAxis key="y" tickFormatter={format} fontSize={11} width={56} />,
    <Tooltip key="tt" labelFormatter={(_, p) => String((p?.[0]?.payload as SeriesRow | undefined)?.label ?? '')} formatter={(v) => (typeof v === 'number' ? format(v) : String(v))} />,
    <Legend key="l" wrapperStyle={{ fontSize: 12 }} />,
  ];
}

export function BatchCharts({ jobId, live, initial }: { jobId: string; live: boolean; initial?: BatchChartsData }) {
  const [range, setRange] = useState('all');
  const charts = useQuery({
    queryKey: queryKeys.charts(jobId, range),
    queryFn: ({ signal }) => apiFetch<BatchChartsData>(chartsUrl(jobId, range, Date.now()), { signal }),
    initialData: range === 'all' ? initial : undefined,
    refetchInterval: live ? 2000 : false,
    placeholderData: (prev) => prev,
  });
  const d = charts.data;
  const points = d?.points ?? [];
  const empty = points.length === 0;
  const shown = useStagger(9);
  const has = seriesPresence(points);

  return (
    <section aria-label="Charts">
      <div className="toolbar">
        <label>
          Time range
          <select value={range} onChange={(e) => setRange(e.target.value)}>
            {TIME_RANGES.map((r) => (
              <option key={r.key} value={r.key}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <span className="small muted-text" role="status">
          {charts.isLoading
            ? 'Loading charts…'
            : d
              ? `${plural(d.totalBatches, 'batch', 'batches')}${d.downsampled ? `, shown as ${points.length} points (each a mean, a sum or a maximum of its batches)` : ''}${live ? ' · live' : ''}`
              : ''}
        </span>
      </div>
      {d?.stateMemoryWarning && (
        <div className="warn-box" role="status">
          {d.stateMemoryWarning}
        </div>
      )}
      {charts.isError && (
        <div className="error-box" role="alert">
          Could not load the charts: {errorMessage(charts.error)}
        </div>
      )}
      {charts.isLoading ? (
        <div className="grid2" aria-busy="true">
          {[0, 1].map((i) => (
            <div key={i} className="skeleton panel" />
          ))}
        </div>
      ) : d && d.totalBatches === 0 && range === 'all' ? (
        <div className="panel empty">
          <h2>No batches yet</h2>
          <p>Charts appear as soon as the first batch commits. Start the job, or add data to its source.</p>
        </div>
      ) : (
        <div className="grid2">
          <ChartPanel title="Input rate vs processing rate (rows/s)" empty={empty} order={0} shown={shown}>
            {(w) => {
              const data = rateSeries(points);
              return (
                // One axis: both are rows/s, and two scales made 8 and 1,000 rows/s look alike. A
                // processed rate above the input rate is the point: the job keeps up with its input.
                <LineChart width={w} height={CHART_HEIGHT} data={data}>
                  {axes()}
                  <Line dataKey="input" name="input rows/s" stroke={COLORS[0]} strokeWidth={2} dot={dotted(data, 'input')} isAnimationActive={false} />
                  <Line dataKey="processed" name="processed rows/s" stroke={COLORS[1]} strokeDasharray="6 3" dot={dotted(data, 'processed')} isAnimationActive={false} />
                </LineChart>
              );
            }}
          </ChartPanel>
          <ChartPanel title="Batch duration by phase (ms)" empty={empty} order={1} shown={shown}>
            {(w) => {
              const data = phaseSeries(points);
              return (
                <AreaChart width={w} height={CHART_HEIGHT} data={data}>
                  {axes((v) => `${formatNumber(v)}`)}
                  {[...PHASE_ORDER, 'other'].map((k, i) => (
                    <Area key={k} dataKey={k} stackId="1" stroke={COLORS[i % COLORS.length]} fill={COLORS[i % COLORS.length]} fillOpacity={0.35} dot={dotted(data, k)} isAnimationActive={false} />
                  ))}
                </AreaChart>
              );
            }}
          </ChartPanel>
          <ChartPanel title="Input rows per batch" empty={empty} order={2} shown={shown}>
            {(w) => (
              <BarChart width={w} height={CHART_HEIGHT} data={inputRowsSeries(points)}>
                {axes(undefined, true)}
                <Bar dataKey="rows" name="input rows" fill={COLORS[0]} maxBarSize={BAR_MAX_WIDTH} isAnimationActive={false} />
              </BarChart>
            )}
          </ChartPanel>
          <ChartPanel title="State rows" empty={empty} order={3} shown={shown} note={has.state ? undefined : STATE_NOTE}>
            {(w) => {
              const data = stateRowsSeries(points);
              return (
                <LineChart width={w} height={CHART_HEIGHT} data={data}>
                  {axes()}
                  <Line dataKey="total" name="total" stroke={COLORS[0]} dot={dotted(data, 'total')} isAnimationActive={false} />
                  <Line dataKey="updated" name="updated" stroke={COLORS[1]} dot={dotted(data, 'updated')} isAnimationActive={false} />
                  {/* Drawn last (on top), thicker and dashed: removed often equals "updated" and would hide under it. */}
                  <Line dataKey="removed" name="removed (evicted)" stroke={COLORS[3]} strokeWidth={2.5} strokeDasharray="6 4" dot={dotted(data, 'removed')} isAnimationActive={false} />
                  <Line dataKey="droppedByWatermark" name="late rows dropped by watermark" stroke={COLORS[5]} strokeWidth={2} strokeDasharray="2 3" dot={dotted(data, 'droppedByWatermark')} isAnimationActive={false} />
                </LineChart>
              );
            }}
          </ChartPanel>
          <ChartPanel title="State bytes" empty={empty} order={4} shown={shown} note={has.state ? undefined : STATE_NOTE}>
            {(w) => {
              const data = stateBytesSeries(points);
              return (
                <LineChart width={w} height={CHART_HEIGHT} data={data}>
                  {axes(formatBytes)}
                  <Line dataKey="memory" name="memory" stroke={COLORS[4]} dot={dotted(data, 'memory')} isAnimationActive={false} />
                  <Line dataKey="disk" name="disk" stroke={COLORS[2]} dot={dotted(data, 'disk')} isAnimationActive={false} />
                </LineChart>
              );
            }}
          </ChartPanel>
          {d?.lmdbPoints && (
            <ChartPanel title="LMDB state store" empty={empty} order={6} shown={shown}>
              {(w) => {
                const data = lmdbSeries(d.lmdbPoints!);
                return (
                  <LineChart width={w} height={CHART_HEIGHT} data={data}>
                    <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
                    <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} scale="time" tickFormatter={timeTick} fontSize={11} />
                    <YAxis yAxisId="bytes" tickFormatter={(v) => formatBytes(v)} fontSize={11} width={64} />
                    <YAxis yAxisId="stores" orientation="right" allowDecimals={false} fontSize={11} width={56} label={{ value: 'stores rebuilt', angle: 90, position: 'insideRight', fontSize: 11 }} />
                    <Tooltip labelFormatter={(_, p) => String((p?.[0]?.payload as SeriesRow | undefined)?.label ?? '')} formatter={(v, name) => (typeof v === 'number' && name !== 'stores rebuilt from checkpoint' ? formatBytes(v) : String(v))} />
                    <Legend wrapperStyle={{ fontSize: 12 }} />
                    <Line yAxisId="bytes" dataKey="localBytes" name="local LMDB bytes" stroke={COLORS[2]} dot={dotted(data, 'localBytes')} isAnimationActive={false} />
                    <Line yAxisId="bytes" dataKey="changelogBytes" name="changelog bytes written" stroke={COLORS[4]} dot={dotted(data, 'changelogBytes')} isAnimationActive={false} />
                    <Line yAxisId="stores" type="stepAfter" dataKey="storesRebuilt" name="stores rebuilt from checkpoint" stroke={COLORS[3]} strokeDasharray="4 3" dot={dotted(data, 'storesRebuilt')} isAnimationActive={false} />
                  </LineChart>
                );
              }}
            </ChartPanel>
          )}
          {d?.sourcePoints && (
            <ChartPanel title="Per source: input rows per batch and commit lag" empty={empty} order={7} shown={shown}>
              {(w) => {
                const lagged = d.sourceNames.map((_, i) => d.sourcePoints!.some((p) => p.sources[i]?.commitLag !== null && p.sources[i]?.commitLag !== undefined));
                const data = sourceSeries(d.sourcePoints!);
                return (
                  <LineChart width={w} height={CHART_HEIGHT} data={data}>
                    <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
                    <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} scale="time" tickFormatter={timeTick} fontSize={11} />
                    <YAxis yAxisId="rows" tickFormatter={(v) => formatNumber(v)} fontSize={11} width={56} />
                    {lagged.some(Boolean) && <YAxis yAxisId="lag" orientation="right" tickFormatter={(v) => formatNumber(v)} fontSize={11} width={56} />}
                    <Tooltip labelFormatter={(_, p) => String((p?.[0]?.payload as SeriesRow | undefined)?.label ?? '')} formatter={(v) => (typeof v === 'number' ? formatNumber(v) : String(v))} />
                    <Legend wrapperStyle={{ fontSize: 12 }} />
                    {d.sourceNames.map((name, i) => (
                      <Line key={`rows_${i}`} yAxisId="rows" dataKey={`rows_${i}`} name={`${name}: input rows`} stroke={COLORS[i % COLORS.length]} dot={dotted(data, `rows_${i}`)} isAnimationActive={false} />
                    ))}
                    {d.sourceNames.map((name, i) =>
                      lagged[i] ? (
                        <Line key={`lag_${i}`} yAxisId="lag" dataKey={`lag_${i}`} name={`${name}: commit lag`} stroke={COLORS[i % COLORS.length]} strokeDasharray="6 3" dot={dotted(data, `lag_${i}`)} connectNulls isAnimationActive={false} />
                      ) : null,
                    )}
                  </LineChart>
                );
              }}
            </ChartPanel>
          )}
          {d?.sourcePoints && d.sourcePoints.some((p) => p.sources.some((s) => s.watermarkGapMs !== null)) && (
            <ChartPanel
              title="Watermark gap per source (s)"
              empty={empty}
              order={8}
              shown={shown}
              caption={
                <>
                  How far each source&apos;s own watermark trails the trigger time. The global one, which the stateful operators use, is the{' '}
                  {d.multipleWatermarkPolicy === 'max' ? 'max (the fastest source)' : 'min (the slowest source)'} of theirs and never moves back: multipleWatermarkPolicy <code>{d.multipleWatermarkPolicy ?? 'min'}</code>.
                </>
              }
            >
              {(w) => {
                const data = sourceWatermarkSeries(d.sourcePoints!, points);
                return (
                  <LineChart width={w} height={CHART_HEIGHT} data={data}>
                    {axes((v) => `${formatNumber(v)} s`)}
                    {d.sourceNames.map((name, i) => (
                      <Line key={`gap_${i}`} dataKey={`gap_${i}`} name={`${name}: own watermark gap`} stroke={COLORS[i % COLORS.length]} dot={dotted(data, `gap_${i}`)} connectNulls isAnimationActive={false} />
                    ))}
                    <Line dataKey="global" name={`global watermark gap (${d.multipleWatermarkPolicy ?? 'min'})`} stroke={COLORS[6]} strokeWidth={2.5} strokeDasharray="6 4" dot={dotted(data, 'global')} connectNulls isAnimationActive={false} />
                  </LineChart>
                );
              }}
            </ChartPanel>
          )}
          <ChartPanel
            title="Commit lag and watermark gap"
            empty={empty}
            order={5}
            shown={shown}
            note={has.commitLag || has.watermarkGap ? undefined : 'Nothing to draw: the source reports no commit lag (how far the committed offset trails the newest), and the job has no watermark (set an event-time column and a watermark delay).'}
          >
            {(w) => {
              const data = lagSeries(points);
              return (
                // Only the series there is data for, each with its axis: no axis with nothing on it.
                <LineChart width={w} height={CHART_HEIGHT} data={data}>
                  <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
                  <XAxis dataKey="t" type="number" domain={['dataMin', 'dataMax']} scale="time" tickFormatter={timeTick} fontSize={11} />
                  {has.commitLag && <YAxis yAxisId="lag" tickFormatter={(v) => formatNumber(v)} fontSize={11} width={56} />}
                  {has.watermarkGap && <YAxis yAxisId="gap" orientation={has.commitLag ? 'right' : 'left'} tickFormatter={(v) => `${formatNumber(v)} s`} fontSize={11} width={56} />}
                  <Tooltip labelFormatter={(_, p) => String((p?.[0]?.payload as SeriesRow | undefined)?.label ?? '')} />
                  <Legend wrapperStyle={{ fontSize: 12 }} />
                  {has.commitLag && <Line yAxisId="lag" dataKey="commitLag" name="commit lag (source units)" stroke={COLORS[3]} dot={dotted(data, 'commitLag')} connectNulls isAnimationActive={false} />}
                  {has.watermarkGap && <Line yAxisId="gap" dataKey="watermarkGapSeconds" name="watermark gap (s)" stroke={COLORS[2]} dot={dotted(data, 'watermarkGapSeconds')} connectNulls isAnimationActive={false} />}
                </LineChart>
              );
            }}
          </ChartPanel>
        </div>
      )}
    </section>
  );
}
