/**
 * Small dense linear algebra for the fitting tasks (tasks/fit_capture.ts,
 * tasks/confidence_meaning.ts, tasks/fit_confidence*.ts, tasks/confidence_features.ts): Newton
 * steps of a logistic regression solve H x = g.
 * @module
 */

/** Solve A x = b (Gaussian elimination with partial pivoting; A is small). */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      if (f === 0) continue;
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = m[r][n];
    for (let k = r + 1; k < n; k++) v -= m[r][k] * x[k];
    x[r] = v / m[r][r];
  }
  return x;
}

/** One weighted example of a logistic regression: features `x` (x[0] = 1), label, weight. */
export interface Example {
  x: number[];
  y: number;
  c: number;
}

/**
 * Logistic regression by Newton's method over weighted examples: the weights w (w[0] the
 * intercept) of σ(w · x), with an L2 penalty `ridge` on every weight but the intercept, until a
 * step moves no weight by more than `tolerance` or after `iterations` steps.
 */
export function fitLogistic(
  ex: readonly Example[],
  ridge: number,
  { iterations = 100, tolerance = 1e-9 }: { iterations?: number; tolerance?: number } = {},
): number[] {
  const n = ex[0]?.x.length ?? 1;
  let w = new Array(n).fill(0);
  for (let it = 0; it < iterations; it++) {
    const g = new Array(n).fill(0);
    const h = Array.from({ length: n }, () => new Array(n).fill(0));
    for (const e of ex) {
      const p = 1 / (1 + Math.exp(-e.x.reduce((a, xi, i) => a + xi * w[i], 0)));
      for (let i = 0; i < n; i++) {
        g[i] += e.c * (p - e.y) * e.x[i];
        for (let j = 0; j < n; j++) h[i][j] += e.c * p * (1 - p) * e.x[i] * e.x[j];
      }
    }
    for (let i = 1; i < n; i++) (g[i] += ridge * w[i], h[i][i] += ridge);
    const step = solve(h, g);
    w = w.map((wi, i) => wi - step[i]);
    if (Math.max(...step.map(Math.abs)) < tolerance) break;
  }
  return w;
}
