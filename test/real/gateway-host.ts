// The gateway stand-in of a real test cluster, run inside its network namespace by netns.ts:
// Linkerd's gateway answers its probe with 200 on :4191/ready and takes traffic on :4143 (here an
// HTTP server that answers 200, enough to see a connection through a mirror's address).
const address = process.argv[2];
if (!address) throw new Error("usage: gateway-host.ts ADDRESS");
Bun.serve({
  hostname: address,
  port: 4191,
  fetch: (req) => (new URL(req.url).pathname === "/ready" ? new Response("ok\n") : new Response("", { status: 404 })),
});
Bun.serve({ hostname: address, port: 4143, fetch: () => new Response("gateway\n") });
process.stdout.write(`gateway stand-in listening on ${address}:4191 and :4143\n`);
