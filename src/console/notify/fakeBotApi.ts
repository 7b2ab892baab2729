/**
 * A fake Telegram Bot API on loopback for tests: getUpdates long-polls (answers when an update
 * arrives or its timeout passes, with every update from the offset on), sendMessage is recorded,
 * and the next getUpdates answers can be made to fail. Any other path is 404.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fake Telegram Bot API on loopback and what it saw. */
export interface FakeBotApi {
  url: string;
  /** sendMessage bodies. */
  sent: { chat_id: unknown; text: string }[];
  /** Offsets asked for by getUpdates. */
  offsets: number[];
  /** getUpdates answers still to fail with this status. */
  failNext: number;
  say(chatId: number, text: string, user?: string): void;
  close(): Promise<void>;
}

/** Starts a fake Bot API for `token` on an ephemeral loopback port. */
export async function fakeBotApi(token: string): Promise<FakeBotApi> {
  const updates: unknown[] = [];
  let nextId = 100;
  const waiting = new Set<() => void>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      const answer = (result: unknown): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
      if (req.url !== `/bot${token}/getUpdates` && req.url !== `/bot${token}/sendMessage`) return void res.writeHead(404).end('{"ok":false,"description":"Not Found"}');
      if (req.url.endsWith('/sendMessage')) {
        f.sent.push(body as FakeBotApi['sent'][number]);
        return answer({ message_id: 1 });
      }
      if (f.failNext > 0) {
        f.failNext--;
        return void res.writeHead(502).end();
      }
      const offset = Number(body.offset);
      f.offsets.push(offset);
      const ready = (): unknown[] => updates.filter((u) => (u as { update_id: number }).update_id >= offset);
      if (ready().length > 0) return answer(ready());
      // Long poll: answer when an update arrives or the timeout passes.
      const timer = setTimeout(() => (waiting.delete(wake), answer([])), Number(body.timeout) * 1000);
      const wake = (): void => {
        clearTimeout(timer);
        waiting.delete(wake);
        answer(ready());
      };
      waiting.add(wake);
      res.on('close', () => (clearTimeout(timer), waiting.delete(wake)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const f: FakeBotApi = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: [],
    offsets: [],
    failNext: 0,
    say(chatId, text, user = 'alice') {
      updates.push({ update_id: nextId++, message: { message_id: nextId, date: 0, text, chat: { id: chatId, type: 'private' }, from: { id: 1, is_bot: false, username: user } } });
      for (const w of [...waiting]) w();
    },
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
  return f;
}
