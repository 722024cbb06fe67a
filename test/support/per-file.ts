/**
 * Vitest setup file: runs before every test file, in isolated forks and in the shared worker alike
 * (where modules are loaded once, so hooks registered at import time would not be registered again).
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.js';

afterAll(removeTempDirs);
