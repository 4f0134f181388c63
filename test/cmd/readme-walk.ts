// The README's sandbox walk as a list of shell commands, read from README.md itself so the two cannot drift: the blocks of "Try it on two
// sandboxes" (start the sandboxes, give east a Service, run the controller) around the block of "Using it on real clusters", whose
// `--context X` become `--kubeconfig X.kubeconfig` and after whose `mc … link` line the controller starts, as the section says.

export interface Step {
  /** The command as bash runs it (a heredoc stays one command). */
  command: string;
  /** Ends with `&`: started and left running (the `&` removed). */
  background: boolean;
  /** Which README section it comes from. */
  from: "sandbox" | "real";
}

export const SANDBOX_SECTION = "Try it on two sandboxes";
export const REAL_SECTION = "Using it on real clusters";
export const KUBE_SECTION = "Try it on two real Kubernetes clusters";

/** The text under `## title`, up to the next `## ` heading. */
export function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const body = markdown.slice(start + title.length + 5);
  const end = body.search(/\n## /);
  return end < 0 ? body : body.slice(0, end);
}

/** The bodies of the ```sh blocks of a text, in order. */
export function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** One block's commands: a line each, except that a heredoc runs to its closing word. */
export function commands(block: string, from: Step["from"]): Step[] {
  const out: Step[] = [];
  const lines = block.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let command = lines[i]!;
    if (command.trim() === "" || command.trim().startsWith("#")) continue;
    const heredoc = command.match(/<<-?\s*'?"?(\w+)'?"?/);
    if (heredoc) {
      const end = lines.indexOf(heredoc[1]!, i + 1);
      if (end < 0) throw new Error(`heredoc ${heredoc[1]} in the README is not closed: ${command}`);
      command = lines.slice(i, end + 1).join("\n");
      i = end;
    }
    const background = /\s&\s*$/.test(command);
    out.push({ command: background ? command.replace(/\s&\s*$/, "") : command, background, from });
  }
  return out;
}

/** `--context east` → `--kubeconfig east.kubeconfig`, as the sandbox section says. */
export const withKubeconfigs = (command: string): string => command.replace(/--context[ =](\S+)/g, "--kubeconfig $1.kubeconfig");

/** The whole walk, in the order the README gives it; `around` names the section of the three blocks around the real-cluster one. */
export function readmeWalk(markdown: string, around = SANDBOX_SECTION): Step[] {
  const blocks = shellBlocks(section(markdown, around));
  if (blocks.length !== 3) throw new Error(`"${around}" should have 3 sh blocks (start, a Service, the controller), has ${blocks.length}`);
  const [start, service, controller] = blocks.map((b) => commands(b, "sandbox")) as [Step[], Step[], Step[]];
  const realBlocks = shellBlocks(section(markdown, REAL_SECTION));
  if (realBlocks.length !== 1) throw new Error(`"${REAL_SECTION}" should have 1 sh block, has ${realBlocks.length}`);
  const real = commands(realBlocks[0]!, "real").map((s) => ({ ...s, command: withKubeconfigs(s.command) }));
  const links = real.filter((s) => /^mc( --\S+ \S+)* link /.test(s.command));
  if (links.length !== 1) throw new Error(`"${REAL_SECTION}" should have one mc link line, has ${links.length}`);
  const at = real.indexOf(links[0]!) + 1;
  return [...start, ...service, ...real.slice(0, at), ...controller, ...real.slice(at)];
}
