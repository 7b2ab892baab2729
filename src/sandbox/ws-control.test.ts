import { describe, expect, it } from 'vitest';
import { parseControl } from './ws-control.js';

/** The reply text for a frame that must fail. */
function reply(frame: string): string {
  const r = parseControl(frame);
  if (r.ok) throw new Error(`expected an error for ${frame}`);
  return r.reply;
}

const VARIANTS = 'expected one of SUBSCRIBE, UNSUBSCRIBE, LIST_SUBSCRIPTIONS, SET_PROPERTY, GET_PROPERTY';

describe('control message errors, byte for byte (spec error table)', () => {
  it('code 0 Unknown property (SET_PROPERTY and GET_PROPERTY)', () => {
    expect(reply('{"method":"SET_PROPERTY","params":["combine",true],"id":5}')).toBe('{"code":0,"msg":"Unknown property","id":5}');
    expect(reply('{"method":"GET_PROPERTY","params":["merged"],"id":6}')).toBe('{"code":0,"msg":"Unknown property","id":6}');
  });

  it('code 1 Invalid value type: expected Boolean', () => {
    expect(reply('{"method":"SET_PROPERTY","params":["combined","yes"],"id":7}')).toBe('{"code":1,"msg":"Invalid value type: expected Boolean","id":7}');
    expect(reply('{"method":"SET_PROPERTY","params":["combined"],"id":7}')).toBe('{"code":1,"msg":"Invalid value type: expected Boolean","id":7}');
  });

  it('code 2 property name must be a string (invalid or missing)', () => {
    expect(reply('{"method":"SET_PROPERTY","params":[1,true],"id":8}')).toBe('{"code":2,"msg":"Invalid request: property name must be a string","id":8}');
    expect(reply('{"method":"GET_PROPERTY","params":[],"id":8}')).toBe('{"code":2,"msg":"Invalid request: property name must be a string","id":8}');
  });

  it('code 2 request ID must be an unsigned integer (missing, string, negative, fraction)', () => {
    const msg = '{"code":2,"msg":"Invalid request: request ID must be an unsigned integer"}';
    expect(reply('{"method":"SUBSCRIBE","params":["btcusdt@trade"]}')).toBe(msg);
    expect(reply('{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":"1"}')).toBe(msg);
    expect(reply('{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":-1}')).toBe(msg);
    expect(reply('{"method":"SUBSCRIBE","params":["btcusdt@trade"],"id":1.5}')).toBe(msg);
  });

  it('code 2 unknown variant with serde position suffix (column of the closing quote)', () => {
    expect(reply('{"method":"SUBSCRIB","params":[],"id":1}')).toBe(`{"code":2,"msg":"Invalid request: unknown variant SUBSCRIB, ${VARIANTS} at line 1 column 20","id":1}`);
    expect(reply('{"id":2,"method":"subscribe"}')).toBe(`{"code":2,"msg":"Invalid request: unknown variant subscribe, ${VARIANTS} at line 1 column 28","id":2}`);
  });

  it('code 2 too many parameters', () => {
    expect(reply('{"method":"LIST_SUBSCRIPTIONS","params":["x"],"id":3}')).toBe('{"code":2,"msg":"Invalid request: too many parameters","id":3}');
    expect(reply('{"method":"GET_PROPERTY","params":["combined",true],"id":3}')).toBe('{"code":2,"msg":"Invalid request: too many parameters","id":3}');
    expect(reply('{"method":"SET_PROPERTY","params":["combined",true,1],"id":3}')).toBe('{"code":2,"msg":"Invalid request: too many parameters","id":3}');
  });

  it('code 2 missing field method with the position of the closing brace', () => {
    expect(reply('{"params":[],"id":3}')).toBe('{"code":2,"msg":"Invalid request: missing field method at line 1 column 20","id":3}');
    expect(reply('{\n  "id": 4\n}')).toBe('{"code":2,"msg":"Invalid request: missing field method at line 3 column 1","id":4}');
  });

  it('code 3 Invalid JSON: expected value at line/column', () => {
    expect(reply('{"method":}')).toBe('{"code":3,"msg":"Invalid JSON: expected value at line 1 column 11"}');
    expect(reply('{\n"method":\n}')).toBe('{"code":3,"msg":"Invalid JSON: expected value at line 3 column 1"}');
    expect(reply('[,]')).toBe('{"code":3,"msg":"Invalid JSON: expected value at line 1 column 2"}');
  });

  it('code 3 for other syntax errors, in serde wording', () => {
    expect(reply('{"method":"SUBSCRIBE",')).toBe('{"code":3,"msg":"Invalid JSON: EOF while parsing an object at line 1 column 22"}');
    expect(reply('{"a":1} x')).toBe('{"code":3,"msg":"Invalid JSON: trailing characters at line 1 column 9"}');
    expect(reply('')).toBe('{"code":3,"msg":"Invalid JSON: EOF while parsing a value at line 1 column 0"}');
  });

  it('code 3 recursion limit exceeded for nesting deeper than serde allows', () => {
    expect(reply('['.repeat(5_000))).toBe('{"code":3,"msg":"Invalid JSON: recursion limit exceeded at line 1 column 128"}');
    expect(reply(`{"method":"SUBSCRIBE","params":${'['.repeat(200)}`)).toBe('{"code":3,"msg":"Invalid JSON: recursion limit exceeded at line 1 column 158"}');
  });

  it('code 2 params that are not an array, in serde wording with the position of the value end', () => {
    expect(reply('{"method":"SUBSCRIBE","params":"btcusdt@trade","id":9}')).toBe('{"code":2,"msg":"Invalid request: invalid type: string \\"btcusdt@trade\\", expected a sequence at line 1 column 46","id":9}');
    expect(reply('{"method":"GET_PROPERTY","params":true,"id":9}')).toBe('{"code":2,"msg":"Invalid request: invalid type: boolean `true`, expected a sequence at line 1 column 38","id":9}');
    expect(reply('{"method":"UNSUBSCRIBE","params":5,"id":9}')).toBe('{"code":2,"msg":"Invalid request: invalid type: integer `5`, expected a sequence at line 1 column 34","id":9}');
  });

  it('code 2 invalid stream for a malformed stream name', () => {
    expect(reply('{"method":"SUBSCRIBE","params":["btcusdt@tradez"],"id":9}')).toBe('{"code":2,"msg":"Invalid request: invalid stream","id":9}');
    expect(reply('{"method":"SUBSCRIBE","params":[7],"id":9}')).toBe('{"code":2,"msg":"Invalid request: invalid stream","id":9}');
  });
});

describe('valid control messages', () => {
  it('parses every method', () => {
    expect(parseControl('{"method":"SUBSCRIBE","params":["btcusdt@aggTrade","btcusdt@depth@100ms"],"id":1}')).toEqual({ ok: true, command: { method: 'SUBSCRIBE', id: 1, streams: ['btcusdt@aggTrade', 'btcusdt@depth@100ms'] } });
    expect(parseControl('{"method":"UNSUBSCRIBE","params":["btcusdt@depth"],"id":312}')).toEqual({ ok: true, command: { method: 'UNSUBSCRIBE', id: 312, streams: ['btcusdt@depth'] } });
    expect(parseControl('{"method":"LIST_SUBSCRIPTIONS","id":3}')).toEqual({ ok: true, command: { method: 'LIST_SUBSCRIPTIONS', id: 3 } });
    expect(parseControl('{"method":"SET_PROPERTY","params":["combined",true],"id":5}')).toEqual({ ok: true, command: { method: 'SET_PROPERTY', id: 5, property: 'combined', value: true } });
    expect(parseControl('{"method":"GET_PROPERTY","params":["combined"],"id":2}')).toEqual({ ok: true, command: { method: 'GET_PROPERTY', id: 2, property: 'combined' } });
  });
});
