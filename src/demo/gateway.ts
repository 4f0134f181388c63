// Stand-ins for a gateway's probe endpoint (the linkerd-proxy admin port answering `/ready`). The demo's gateway answers on a loopback port
// and can be stopped and started again on the same port; `mc sandbox --linkerd` runs one where its gateway Service says the gateway is
// (gateway-standin.ts).
export interface DemoGateway {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Answers `path` with 200 on hostname:port (0 = a free port); throws if the address is taken. */
export function listenProbe(hostname: string, port: number, path = "/ready"): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname,
    port,
    fetch: (req) => (new URL(req.url).pathname === path ? new Response("ok\n") : new Response("not found\n", { status: 404 })),
  });
}

export async function startDemoGateway(): Promise<DemoGateway> {
  let server: ReturnType<typeof listenProbe> | undefined = listenProbe("127.0.0.1", 0);
  const port = server.port!;
  return {
    port,
    async stop() {
      await server?.stop(true);
      server = undefined;
    },
    async start() {
      server ??= listenProbe("127.0.0.1", port);
    },
  };
}
