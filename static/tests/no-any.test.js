// Issue 23 item 4: the client's JSDoc types say what the data is (static/js/types.js, derived
// from the server's models); `any` switches the type checker off, so none may come back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../js/', import.meta.url).pathname;
const TAG = /@(?:type|param|returns?|typedef|property|prop|template|satisfies|this)\s*\{/g;

/** The type expressions of a source's JSDoc tags, braces balanced. @param {string} text */
function jsdocTypes(text) {
  const out = [];
  for (const m of text.matchAll(TAG)) {
    let depth = 1;
    let end = m.index + m[0].length;
    for (; end < text.length && depth; end += 1) depth += text[end] === '{' ? 1 : text[end] === '}' ? -1 : 0;
    out.push(text.slice(m.index + m[0].length, end - 1));
  }
  return out;
}

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? sources(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []));
}

test('no JSDoc type in static/js is or holds `any`', () => {
  const found = sources(ROOT).flatMap((file) => jsdocTypes(readFileSync(file, 'utf8'))
    .filter((type) => /\bany\b/.test(type)).map((type) => `${file.slice(ROOT.length)}: {${type}}`));
  assert.deepEqual(found, []);
});

test('the check reads every JSDoc form of `any`, and only types', () => {
  const text = [
    '/** @type {any} */ (x)', '@param {any[]} a', '@returns {Promise<any>}', '@type {Record<string, any>}',
    '@param {{f:(body:any) => void, g:{h:any}}} opts', '@property {() => any} [get]',
    '// where a gap starts, if any', 'const any = 1; /** @type {{many:number}} */',
  ].join('\n');
  assert.deepEqual(jsdocTypes(text).filter((t) => /\bany\b/.test(t)),
    ['any', 'any[]', 'Promise<any>', 'Record<string, any>', '{f:(body:any) => void, g:{h:any}}', '() => any']);
});
