import Fastify from 'fastify';
import http from 'node:http';
const app = Fastify({
  clientErrorHandler(err, socket) {
    if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || socket.destroyed) return;
    const body = JSON.stringify({ error: 'x' });
    console.log('clientError', (err as NodeJS.ErrnoException).code, socket.listenerCount('data'));
    socket.end(`HTTP/1.1 431 X\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
    socket.resume();
    setTimeout(() => socket.destroy(), 2000).unref();
  },
});
app.get('/', async () => 'ok');
await app.listen({ port: 0, host: '127.0.0.1' });
const port = (app.server.address() as any).port;
let ok = 0, bad = 0;
for (let i = 0; i < 50; i++) {
  const r = await new Promise<string>((res) => {
    const q = http.request({ host: '127.0.0.1', port, path: '/' + 'b'.repeat(20000 + i * 1000) }, (resp) => { let d=''; resp.on('data', c=>d+=c); resp.on('end', ()=>res(resp.statusCode+d)); });
    q.on('error', (e) => res('ERR ' + e.message)); q.end();
  });
  if (r.startsWith('431')) ok++; else { bad++; console.log(r); }
}
console.log({ ok, bad });
await app.close();
