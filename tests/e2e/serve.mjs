// A static file server for the built planner (dist/), for the browser
// tests: no dependencies, localhost only. An optional third argument
// serves dist/ under a subpath (`/memwall/`) and nothing outside it, as a
// project docs site would.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const root = normalize(join(process.cwd(), process.argv[2] ?? 'dist'));
const port = Number(process.argv[3] ?? 8081);
const prefix = process.argv[4] ?? '/';
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

createServer(async (req, res) => {
  const full = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (!full.startsWith(prefix)) {
    res.writeHead(404).end('not found');
    return;
  }
  const path = '/' + full.slice(prefix.length);
  let file = normalize(join(root, path));
  if (!file.startsWith(root)) {
    res.writeHead(403).end();
    return;
  }
  try {
    if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
}).listen(port, '127.0.0.1', () => console.log(`serving ${root} on http://127.0.0.1:${port}`));
