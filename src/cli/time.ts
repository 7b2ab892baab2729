/** `kancil time`: server time and clock offset, the first connectivity check. */
import { EXCHANGE_OPTIONS_USAGE } from './args.js';
import { ExitCode } from './command.js';
import { exchangeCommand } from './openClientFromArgs.js';

/** The `time` command. */
export const command = exchangeCommand(
  `Usage: kancil time [options]

Prints the exchange server time (GET /open/v1/common/time), the local time and the offset.

${EXCHANGE_OPTIONS_USAGE}`,
  async (client, values, io) => {
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
  },
);
