import React, { useState } from 'react';
import { Box, Text, useInput } from 'ink';
import type { SessionInfo } from '@acp-kit/protocol';
import { stripAnsi } from '../style.js';

/** Lists sessions to resume; `onPick(undefined)` starts a new session. */
export function SessionPicker({
  sessions,
  onPick,
}: {
  sessions: SessionInfo[];
  onPick: (id: string | undefined) => void;
}): React.ReactElement {
  const [index, setIndex] = useState(0);
  const rows: Array<{ id: string | undefined; s: SessionInfo | undefined }> = [
    ...sessions.map((s) => ({ id: s.sessionId, s })),
    { id: undefined, s: undefined },
  ];
  useInput((input, key) => {
    if (key.upArrow) setIndex((i) => (i + rows.length - 1) % rows.length);
    else if (key.downArrow || key.tab) setIndex((i) => (i + 1) % rows.length);
    // rows is never empty (the "new session" row), and index stays in range
    else if (key.return) onPick(rows[index]?.id);
    else if (key.escape || (key.ctrl && input === 'c')) onPick(undefined);
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold color="cyan">
        Resume a session
      </Text>
      {rows.slice(0, 20).map((r, i) => (
        <Text key={r.id ?? '__new'} color={i === index ? 'cyan' : undefined} bold={i === index}>
          {i === index ? '❯ ' : '  '}
          {r.s ? (
            <>
              {r.s.title ? stripAnsi(r.s.title) : '(untitled)'}
              <Text dimColor>
                {' '}
                {r.s.sessionId}
                {r.s.updatedAt ? ` · ${new Date(r.s.updatedAt).toLocaleString()}` : ''}
              </Text>
            </>
          ) : (
            'Start a new session'
          )}
        </Text>
      ))}
      <Text dimColor>↑/↓ choose · Enter confirm · Esc new session</Text>
    </Box>
  );
}
