/**
 * The log format follows where stdout goes, in a real child process: a pipe (a file, journald, a
 * collector) gets one JSON object per line; a terminal, a pseudo-terminal made by util-linux's
 * `script`, gets pino-pretty's readable lines.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('log format', function () {
  this.timeout(60_000);
  let folder: string;
  let program: string;

  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'batchbook-logs-'));
    program = path.join(folder, 'log-once.ts');
    const logger = path.join(REPO_ROOT, 'src/logger.ts');
    writeFileSync(
      program,
      `import { createLogger } from ${JSON.stringify(logger)};\n` +
        `createLogger('info').info({ answer: 42 }, 'hello from the test');\n`,
    );
  });

  after(() => rmSync(folder, { recursive: true, force: true }));

  it('is one JSON object per line when stdout is not a terminal', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', program], {
      cwd: REPO_ROOT,
    });
    const lines = stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).to.include({ level: 30, msg: 'hello from the test', answer: 42 });
    expect(line.service).to.equal('batchbook');
  });

  it('is readable lines when stdout is a terminal', async () => {
    const command = [process.execPath, '--import', 'tsx', program]
      .map((word) => `'${word}'`)
      .join(' ');
    // `script` runs the command on a pseudo-terminal and copies what it writes to our pipe.
    const { stdout } = await run('script', ['-q', '-e', '-c', command, '/dev/null'], {
      cwd: REPO_ROOT,
    });
    // eslint-disable-next-line no-control-regex
    const text = stdout.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
    const first = text.split('\n')[0]!;
    expect(() => JSON.parse(first) as unknown, first).to.throw();
    expect(first).to.match(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO.*: hello from the test$/);
    expect(text).to.include('answer: 42');
  });
});
