// `import src from "….proto" with { type: "text" }`: Bun embeds the file as a string (also in
// `bun build --compile`). Used by src/sandbox/protobuf/schema.ts for Kubernetes' generated.proto files.
declare module "*.proto" {
  const text: string;
  export default text;
}
