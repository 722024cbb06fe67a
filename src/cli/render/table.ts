/**
 * Plain-text tables of the capture commands (`stats`, `diff`): every cell padded to its column's
 * widest, columns two spaces apart.
 */
export function alignColumns(rows: readonly (readonly string[])[], leftAligned: (column: number) => boolean): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => void (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r.map((c, i) => (leftAligned(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '),
  );
}
