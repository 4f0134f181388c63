// The demo's stand-in for east's gateway: answers the probe path `/ready` with 200 on a
// loopback port, and can be stopped and started again on the same port.
export interface DemoGateway {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startDemoGateway(): Promise<DemoGateway> {
  const listen = (port: number) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port,
      fetch: (req) => (new URL(req.url).pathname === "/ready" ? new Response("ok\n") : new Response("not found\n", { status: 404 })),
    });
  let server: ReturnType<typeof listen> | undefined = listen(0);
  const port = server.port!;
  return {
    port,
    async stop() {
      await server?.stop(true);
      server = undefined;
    },
    async start() {
      server ??= listen(port);
    },
  };
}
