import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childOutput } from './childOutput.js';

/** A node child that exits at once, leaving a grandchild on its stdout that writes `late` after `ms` and then ends. */
function exitsBeforeItsGrandchild(ms: number, late: string): ReturnType<typeof spawn> {
  const grandchild = `setTimeout(() => process.stdout.write(${JSON.stringify(late)}), ${ms})`;
  const parent = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'ignore'], detached: true }).unref(); process.stdout.write('first\\n'); process.stderr.write('x' + 'é'.repeat(40000)); process.exitCode = 3;`;
  return spawn(process.execPath, ['-e', parent], { stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('childOutput', () => {
  it('ends only once the pipes closed, with every byte, the exit code and whole UTF-8 characters', async () => {
    const child = exitsBeforeItsGrandchild(300, 'printed after the exit\n');
    const out = childOutput(child, 'the child');
    let atExit = '';
    child.once('exit', () => (atExit = out.stdout()));
    expect(await out.closed).toEqual({ code: 3, signal: null });
    // Teeth: at `exit` the grandchild's line was not there yet; at `closed` it is.
    expect(atExit).not.toContain('printed after the exit');
    expect(out.stdout()).toBe('first\nprinted after the exit\n');
    expect(out.stderr()).toBe('x' + 'é'.repeat(40000));
    expect(out.both()).toContain('first\n');
    expect(out.both()).toHaveLength(out.stdout().length + out.stderr().length);
  });

  it('rejects, naming the child, when the pipes stay open past the grace', async () => {
    const child = exitsBeforeItsGrandchild(1500, 'too late\n');
    const out = childOutput(child, 'the child', 200);
    await expect(out.closed).rejects.toThrow(/the child ended \(exit 3\) but its stdout\/stderr stayed open 200 ms after/);
    expect(out.stdout()).toBe('first\n');
  });
});
