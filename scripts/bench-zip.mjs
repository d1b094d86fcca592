// Why src/jar does not use jszip: guava.jar read and written by jszip and by src/jar/zip.ts (Node's zlib), interleaved.
// node scripts/bench-zip.mjs   (after npm run build)
import { readFileSync } from 'node:fs';
import JSZip from 'jszip';
import { readZip, writeZip } from '../dist/jar/zip.js';
const data = readFileSync('/usr/share/java/guava.jar');
const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
const r = { jr: [], jw: [], nr: [], nw: [] };
for (let i = 0; i < 5; i++) {
  let t = performance.now(); const z = await JSZip.loadAsync(data); const files = [];
  for (const n of Object.keys(z.files)) files.push([n, await z.files[n].async('uint8array')]); r.jr.push(performance.now() - t);
  t = performance.now(); const o = new JSZip(); for (const [n, d] of files) o.file(n, d, { date: new Date(0) });
  await o.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 6 } }); r.jw.push(performance.now() - t);
  t = performance.now(); const e = readZip('g', data); r.nr.push(performance.now() - t);
  t = performance.now(); writeZip(e, new Date(0)); r.nw.push(performance.now() - t);
}
console.log(`guava.jar read: jszip ${med(r.jr).toFixed(0)} ms, native zlib ${med(r.nr).toFixed(0)} ms; write: jszip ${med(r.jw).toFixed(0)} ms, native zlib ${med(r.nw).toFixed(0)} ms (median of 5, same process, interleaved)`);
