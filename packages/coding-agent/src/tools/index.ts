import type { Tool } from '../tool.js';
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { runCommandTool } from './run-command.js';
import { searchTextTool } from './search-text.js';
import { writeFileTool } from './write-file.js';

export { askUserTool, askUserSchema } from './ask-user.js';
export { editFileTool, listFilesTool, readFileTool, runCommandTool, searchTextTool, writeFileTool };

/** The built-in tools, in the order the model sees them. */
export function builtinTools(): Tool[] {
  return [readFileTool, listFilesTool, searchTextTool, writeFileTool, editFileTool, runCommandTool];
}
