# The controller image: `mc link` renders a Deployment running ghcr.io/mc-project/mc:<version>
# with args `serve ...`, so the image's ENTRYPOINT is the mc binary itself. Build and push: see
# README ("The container image"). test/ship/image.test.ts checks this file and runs its build
# stage on the host (no container engine on the CI machines).

# Build: the single binary `bun run build` makes, with the Bun of .bun-version.
FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json bun.lock tsconfig.json ./
RUN bun install --frozen-lockfile --production
COPY cmd ./cmd
COPY src ./src
COPY k8s ./k8s
RUN bun run build && ./dist/mc --version

# Run: the binary links only glibc (libc, libm, libpthread, libdl; Bun carries its own TLS and
# root certificates), so distroless "base-nossl" is enough: glibc, CA certificates, tzdata, no
# shell, no package manager. USER is Linkerd's 2103, the uid the rendered Deployment runs as.
FROM gcr.io/distroless/base-nossl-debian12
LABEL org.opencontainers.image.title="mc" \
      org.opencontainers.image.description="Multicluster service mirroring for Kubernetes, wire-compatible with Linkerd's multicluster extension" \
      org.opencontainers.image.source="https://github.com/mc-project/mc" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /src/dist/mc /mc
USER 2103:2103
ENTRYPOINT ["/mc"]
