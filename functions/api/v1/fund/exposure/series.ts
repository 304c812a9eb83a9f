/** The fund-data endpoint of tool `get_exposure_series` (lib/fund/tools/exposure-series.ts), GET at this file's path. */
import { fundEndpoint } from '../../../../../lib/fund/endpoint.ts';
import { exposureSeries } from '../../../../../lib/fund/tools/exposure-series.ts';

export default fundEndpoint(exposureSeries);
