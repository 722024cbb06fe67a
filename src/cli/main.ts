process.stdout.write('acp-kit: CLI under construction\n');
