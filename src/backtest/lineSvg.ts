/**
 * A series drawn as an inline SVG line (no library, nothing fetched), for the reports' small
 * charts: the stitched out-of-sample equity of a walk-forward, the rolling Sharpe of a run.
 * Points without a value break the line.
 */

/** A point of a drawn series (null: no value there). */
export interface LinePoint {
  readonly t: number;
  readonly v: number | null;
}

/** The series as an SVG element of `id`, scaled to its own range; undefined with fewer than two values. */
export function lineSvg(id: string, series: readonly LinePoint[], width = 720, height = 160): string | undefined {
  const vs = series.flatMap((p) => (p.v === null ? [] : [p.v]));
  if (vs.length < 2) return undefined;
  const t0 = (series[0] as LinePoint).t;
  const t1 = (series[series.length - 1] as LinePoint).t;
  const lo = Math.min(...vs);
  const hi = Math.max(...vs);
  const x = (t: number): string => (t1 > t0 ? ((t - t0) / (t1 - t0)) * width : 0).toFixed(1);
  const y = (v: number): string => (hi > lo ? height - ((v - lo) / (hi - lo)) * height : height / 2).toFixed(1);
  const runs: string[][] = [[]];
  for (const p of series) {
    if (p.v === null) runs.push([]);
    else (runs[runs.length - 1] as string[]).push(`${x(p.t)},${y(p.v)}`);
  }
  const lines = runs.filter((r) => r.length > 0).map((r) => `<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="${r.join(' ')}"/>`);
  return `<svg id="${id}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" style="border:1px solid #ccc">${lines.join('')}</svg>`;
}
