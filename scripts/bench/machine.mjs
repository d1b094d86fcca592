// The machine a benchmark ran on, written beside its figures: cores, CPU, memory, load (these
// machines are shared), JDK, and the commit measured.
import { existsSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { spawnSync } from 'node:child_process';
import { REPO, javaBin } from './workloads.mjs';
import { loadavg, sh } from './util.mjs';

export { loadavg } from './util.mjs';

export function machineInfo() {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const javaVersion = spawnSync(javaBin('java'), ['-version'], { encoding: 'utf8' }).stderr.trim().split('\n');
  const git = (args) => spawnSync('git', args, { cwd: REPO, encoding: 'utf8' }).stdout?.trim() ?? '';
  return {
    nproc: Number(sh('nproc', []).trim()),
    cpu: model,
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    loadavg: loadavg(),
    jdk: javaVersion.join(' | '),
    node: process.version,
    os: existsSync('/etc/os-release') ? (/^PRETTY_NAME="?(.*?)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '') : '',
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: git(['status', '--porcelain', '--', 'src', 'runtime-java']).split('\n').filter(Boolean).length,
  };
}
