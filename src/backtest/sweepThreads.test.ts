import { afterAll, describe, expect, it } from 'vitest';
import { SweepThreads } from './sweepThreads.js';

const pool = new SweepThreads(2);
afterAll(() => pool.terminate());

// Jobs whose config does not exist: a quick failure answered by the thread, which stays up.
const job = (index: number): { index: number; configFile: string; strategy: string; params: Record<string, unknown> } => ({ index, configFile: `/nonexistent/kancil-${index}.yaml`, strategy: 'mm', params: {} });

describe('SweepThreads', () => {
  it('keeps its threads warm across jobs, at most `size` of them, each answer to its job', async () => {
    const first = await pool.run(job(0));
    expect(first).toMatchObject({ index: 0, ok: false });
    expect(first.ok ? '' : first.error).toContain('/nonexistent/kancil-0.yaml');
    expect(pool.threads).toBe(1);
    const many = await Promise.all([1, 2, 3, 4, 5].map((i) => pool.run(job(i))));
    expect(many.map((a) => a.index)).toEqual([1, 2, 3, 4, 5]);
    expect(many.every((a) => !a.ok && a.error.includes(`kancil-${a.index}.yaml`))).toBe(true);
    expect(pool.threads).toBe(2);
  }, 60_000);

  it('stops: no thread left, later jobs answer as stopped', async () => {
    await pool.terminate();
    expect(pool.threads).toBe(0);
    expect(await pool.run(job(9))).toEqual({ index: 9, ok: false, error: 'stopped' });
  });
});
