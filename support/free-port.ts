/** Loopback ports for the servers that tests, scripts and benches start. */
import { connect, createServer } from 'node:net';

/** A port free on 127.0.0.1 now: the system picks it, we let it go at once for the caller to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const a = s.address();
        s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no free port'))));
      });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 (for a caller that needs a given port and its neighbours). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Whether something accepts connections on `port` of 127.0.0.1 now (a server started, a back-end opened its store). */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
