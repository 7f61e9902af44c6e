/**
 * A TCP proxy in front of a chain's JSON-RPC, so a test can cut the service off its node and
 * restore it without touching the node (its chain state stays): while cut, connections already
 * open are dropped and new ones are accepted and closed at once (`refuse`), or held open without
 * an answer (`hang`), the two ways a node goes away.
 */
import net from 'node:net';

export type CutMode = 'refuse' | 'hang';

export interface RpcProxy {
  /** The proxy's JSON-RPC URL, to give the service instead of the node's. */
  url: string;
  cut(mode: CutMode): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let mode: CutMode | null = null;

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A peer going away is what this proxy is for: never an unhandled 'error'.
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'hang') return;
    const upstream = net.connect(Number(port), hostname);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as net.AddressInfo;

  return {
    url: `http://127.0.0.1:${proxyPort}`,
    cut(how) {
      mode = how;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      mode = null;
      // Connections held open while hanging never reached the node: let their clients retry.
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
