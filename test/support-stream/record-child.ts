/** Runs `kancil record` in a child process for the SIGINT flush test. */
import { recordCommand } from '../../src/cli/record.js';

recordCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
