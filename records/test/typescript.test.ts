import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCopybook, layoutJsonSchema } from '../src/index.ts';
import { layoutTypeScript, typeNameOf } from '../src/typescript.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

test('a layout declares its JSON form: groups nest, OCCURS are arrays, VALUE fields are optional, big numbers are strings', () => {
  const layout = compileCopybook(
    fixed(
      '01 ORDER-LINE-REQUEST.',
      '   05 OLR-ORDER-ID     PIC X(20).',
      "   05 OLR-CHANNEL      PIC X(3) VALUE 'WEB'.",
      '   05 OLR-TOTAL        PIC S9(7)V99 COMP-3.',
      '   05 OLR-BIG          PIC S9(18)V99 COMP-3.',
      '   05 OLR-LINE-COUNT   PIC 9(2).',
      '   05 OLR-LINE OCCURS 0 TO 5 TIMES DEPENDING ON OLR-LINE-COUNT.',
      '      10 OLR-SKU       PIC X(8).',
      '      10 OLR-QTY       PIC 9(3).',
    ),
  );
  assert.equal(typeNameOf('ORDER-LINE-REQUEST'), 'OrderLineRequest');
  assert.equal(
    layoutTypeScript(layoutJsonSchema(layout)),
    [
      '/** ORDER-LINE-REQUEST */',
      'export interface OrderLineRequest {',
      '  olrOrderId: string;',
      '  olrChannel?: string;',
      '  olrTotal: number;',
      '  olrBig: string;',
      '  olrLineCount: number;',
      '  olrLine: Array<{',
      '    olrSku: string;',
      '    olrQty: number;',
      '  }>;',
      '}',
      '',
    ].join('\n'),
  );
});
