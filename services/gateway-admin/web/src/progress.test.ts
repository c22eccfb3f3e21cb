import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ProgressBox } from './progress';

describe('ProgressBox', () => {
  it('labels its bar by the test id, with the data attributes given, then what follows the bar', () => {
    const html = renderToStaticMarkup(
      createElement(
        ProgressBox,
        {
          testId: 'import-progress',
          'data-status': 'running',
          'data-percent': 30,
          label: 'Running',
          max: 10,
          value: 3,
        },
        createElement('p', { role: 'status' }, 'Done'),
      ),
    );
    expect(html).toBe(
      '<div class="export-progress" data-testid="import-progress" data-status="running" data-percent="30">' +
        '<label for="import-progress-bar">Running</label>' +
        '<progress id="import-progress-bar" max="10" value="3"></progress>' +
        '<p role="status">Done</p></div>',
    );
  });

  it('runs with no known end without a max and a value', () => {
    const html = renderToStaticMarkup(
      createElement(ProgressBox, { testId: 'gdpdu-progress', 'data-busy': 'true', label: 'Receiving' }),
    );
    expect(html).toBe(
      '<div class="export-progress" data-testid="gdpdu-progress" data-busy="true">' +
        '<label for="gdpdu-progress-bar">Receiving</label><progress id="gdpdu-progress-bar"></progress></div>',
    );
  });
});
