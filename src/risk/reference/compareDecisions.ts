/** Canonical text of a risk verdict, so two checkers' answers compare with one string equality. */
import type { RiskDecision } from '../types.js';

/** `accept`, `reject|REASON|message` or `adjust|fields|price|stopPrice|quantity|icebergQty` (values in wire form). */
export function decisionKey(d: RiskDecision): string {
  switch (d.kind) {
    case 'accept':
      return 'accept';
    case 'reject':
      return `reject|${d.reason}|${d.message}`;
    case 'adjust': {
      const i = d.intent;
      return `adjust|${d.fields.join(',')}|${i.price?.toFixed() ?? '-'}|${i.stopPrice?.toFixed() ?? '-'}|${i.quantity?.toFixed() ?? '-'}|${i.icebergQty?.toFixed() ?? '-'}`;
    }
  }
}
