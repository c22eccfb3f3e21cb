import { IntlMessageFormat } from 'intl-messageformat';
import { describe } from 'vitest';
import { MESSAGES } from '../../domain/format';
import { en } from './en';
import { itChecksMessageFiles } from '../../../../../libs/contracts/test/message-files-kit';

describe('document message files', () => {
  itChecksMessageFiles(MESSAGES, en, (text) => new IntlMessageFormat(text, 'en').getAst());
});
