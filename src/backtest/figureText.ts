/**
 * How the summary and the report print a figure: with its unit and a precision a reader can use
 * ("20.18%", "1.35", "-0.00050%"), where result.json keeps the full value. Unavailable figures
 * print "n/a".
 */

/** Digits after the point of a percent or ratio as printed. */
export const SHOWN_DIGITS = 2;

/** Most digits after the point a small figure is given. */
const MAX_DIGITS = 10;

/**
 * At least `digits` after the point, more for a small non-zero figure so that it keeps two
 * significant digits: a -0.0005 % return printed "0.00%" would hide a loss.
 */
function fixed(x: number, digits: number): string {
  const a = Math.abs(x);
  const need = a > 0 && a < 1 ? Math.min(MAX_DIGITS, Math.ceil(-Math.log10(a)) + 1) : 0;
  const s = x.toFixed(Math.max(digits, need));
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/** A percent figure ("20.18%"), or "n/a". */
export function pctText(x: number | null, digits = SHOWN_DIGITS): string {
  return x === null ? 'n/a' : `${fixed(x, digits)}%`;
}

/** A unitless ratio ("1.35"), or "n/a". */
export function ratioNumText(x: number | null, digits = SHOWN_DIGITS): string {
  return x === null ? 'n/a' : fixed(x, digits);
}
