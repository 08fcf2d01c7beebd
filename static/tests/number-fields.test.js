import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// Every number field in the client either counts things (step 1) or takes a measure (a
// distance, a coordinate, an angle, a size) and then accepts any decimal: a browser refuses
// 21.5 in a field stepped by 1 or 7.9 in one stepped by 0.5, and says so only by a red outline.
const root = new URL('../js/', import.meta.url).pathname;

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.js') ? [p] : [];
  });
}

test('a number field is a count stepped by 1, or accepts any decimal', () => {
  const found = [];
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\{[^{}]*type: 'number'[^{}]*\}/g)) {
      // `step` alone is a parameter typed 1|'any' by its caller (own.js).
      const step = /step: ([^,}]+)/.exec(m[0])?.[1]?.trim() ?? (/\bstep[,}]/.test(m[0]) ? 'step' : undefined);
      found.push(file);
      assert.ok(step === "'any'" || step === '1' || step === 'step', `${file}: ${m[0]} (step ${step})`);
    }
  }
  assert.ok(found.length >= 8, 'the number fields were found');
});
