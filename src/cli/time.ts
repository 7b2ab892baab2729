/** `kancil time`: server time and clock offset, the first connectivity check. */
import { EXCHANGE_OPTIONS, EXCHANGE_OPTIONS_USAGE, parseCommandArgs } from './args.js';
import { ExitCode, type Command } from './command.js';
import { openClientFromArgs } from './openClientFromArgs.js';

/** The `time` command. */
export const command: Command = {
  usage: `Usage: kancil time [options]

Prints the exchange server time (GET /open/v1/common/time), the local time and the offset.

${EXCHANGE_OPTIONS_USAGE}`,
  async run(argv, io) {
    const { values } = parseCommandArgs(argv, EXCHANGE_OPTIONS);
    if (values.help) {
      io.stdout(`${this.usage}\n`);
      return ExitCode.OK;
    }
    const client = openClientFromArgs(values, io.env);
    try {
      const t0 = Date.now();
      const offset = await client.syncTime();
      const roundTripMs = Date.now() - t0;
      const local = Date.now();
      const server = local + offset;
      if (values.json) {
        io.stdout(`${JSON.stringify({ serverTime: server, localTime: local, offsetMs: offset, roundTripMs })}\n`);
      } else {
        io.stdout(`server time  ${new Date(server).toISOString()} (${server})\nlocal time   ${new Date(local).toISOString()} (${local})\noffset       ${offset} ms (server - local)\nround trip   ${roundTripMs} ms\n`);
      }
      return ExitCode.OK;
    } finally {
      await client.close();
    }
  },
};
