/** `GET /api/v1/fund/exposure/series` (tool `get_exposure_series`): see lib/fund/tools/exposure-series.ts. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { exposureSeries } from '../../../../../lib/fund/tools/exposure-series.ts';

export default fundEndpoint(exposureSeries);
