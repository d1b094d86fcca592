/**
 * A progress bar for big jars (200 classes or more), drawn only when both stdout and stderr are
 * terminals and neither CI nor TERM=dumb is set: build logs and pipes get no escape codes
 * (test/cli.test.ts checks both sides).
 */
export interface Progress {
  update: (done: number, total: number) => void;
  done: () => void;
}

export function progressBar(label: string): Progress | undefined {
  if (!process.stdout.isTTY || !process.stderr.isTTY || process.env.CI || process.env.TERM === 'dumb') return undefined;
  let last = -1;
  return {
    update(done, total) {
      if (total < 200) return;
      const pct = Math.floor((done * 100) / total);
      if (pct === last) return;
      last = pct;
      const width = 30;
      const filled = Math.round((pct * width) / 100);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${pct}% (${done}/${total})`);
    },
    done() {
      if (last >= 0) process.stderr.write('\r\x1b[K');
    },
  };
}
