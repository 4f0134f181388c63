// Whether a process is alive: signal 0 reaches it (the tests' lock holders, the real clusters' processes).

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
