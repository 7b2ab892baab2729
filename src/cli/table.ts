/** Plain-text tables for the terminal: columns padded to their widest cell, two spaces apart. */

/** Formats `header` and `rows` as aligned lines (each ending in a newline). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const table = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
  return table.map((row) => `${row.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`).join('');
}

/** ISO time to the second, for table cells (UTC). */
export function timeCell(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
