/**
 * US states and territories accepted as `state`, with each filing office's
 * own online UCC search page (the `search_url` of envelope B).
 */
export const STATE_SEARCH_URLS = {
  AL: "https://www.sos.alabama.gov/government-records/ucc-records",
  AK: "https://dnr.alaska.gov/ssd/recoff/ucc",
  AZ: "https://azsos.gov/business/uniform-commercial-code-ucc",
  AR: "https://www.sos.arkansas.gov/uniform-commercial-code",
  CA: "https://bizfileonline.sos.ca.gov/search/ucc",
  CO: "https://www.sos.state.co.us/ucc/pages/search/standardSearch.xhtml",
  CT: "https://service.ct.gov/business/s/onlineucc",
  DE: "https://corp.delaware.gov/uccsearch/",
  DC: "https://recorder.dc.gov/service/ucc-search",
  FL: "https://www.floridaucc.com/uccweb/search.aspx",
  GA: "https://search.gsccca.org/UCC_Search/",
  HI: "https://boc.ehawaii.gov/ucc/",
  ID: "https://sosbiz.idaho.gov/search/ucc",
  IL: "https://apps.ilsos.gov/uccsearch/",
  IN: "https://bsd.sos.in.gov/PublicUccSearch",
  IA: "https://sos.iowa.gov/search/ucc/search.aspx",
  KS: "https://www.sos.ks.gov/ucc/ucc.html",
  KY: "https://web.sos.ky.gov/ftucc/search.aspx",
  LA: "https://www.sos.la.gov/BusinessServices/UniformCommercialCode/Pages/default.aspx",
  ME: "https://apps3.web.maine.gov/online/ucc/search",
  MD: "https://egov.maryland.gov/sdat/ucc",
  MA: "https://corp.sec.state.ma.us/uccsearch/",
  MI: "https://www.michigan.gov/sos/resources/ucc",
  MN: "https://mblsportal.sos.state.mn.us/Ucc/Search",
  MS: "https://corp.sos.ms.gov/corp/portal/c/page/uccSearch/portal.aspx",
  MO: "https://bsd.sos.mo.gov/Search/UCCSearch.aspx",
  MT: "https://biz.sosmt.gov/search/ucc",
  NE: "https://www.nebraska.gov/sos/ucc/",
  NV: "https://www.nvsos.gov/sos/online-services/ucc-search",
  NH: "https://quickstart.sos.nh.gov/online/UccSearch",
  NJ: "https://www.njportal.com/UCC/Search",
  NM: "https://portal.sos.state.nm.us/UCC/Search",
  NY: "https://appext20.dos.ny.gov/pls/ucc_public/web_search.main_frame",
  NC: "https://www.sosnc.gov/online_services/search/by_title/_Uniform_Commercial_Code",
  ND: "https://firststop.sos.nd.gov/search/ucc",
  OH: "https://www.ohiosos.gov/ucc/search/",
  OK: "https://www.sos.ok.gov/ucc/default.aspx",
  OR: "https://secure.sos.state.or.us/ucc/searchHome.action",
  PA: "https://file.dos.pa.gov/search/ucc",
  RI: "https://ucc.sos.ri.gov/",
  SC: "https://ucc.sos.sc.gov/",
  SD: "https://sosenterprise.sd.gov/BusinessServices/UCC/Search.aspx",
  TN: "https://tnbear.tn.gov/UCC/Search.aspx",
  TX: "https://www.sos.state.tx.us/ucc/index.shtml",
  UT: "https://secure.utah.gov/uccsearch/",
  VT: "https://bizfilings.vermont.gov/online/UCCInquire/",
  VA: "https://cis.scc.virginia.gov/UCCOnlineSearch/UCCSearch",
  WA: "https://ccfs.sos.wa.gov/#/UCCSearch",
  WV: "https://apps.wv.gov/SOS/UCC/",
  WI: "https://www.wdfi.org/ucc/search/",
  WY: "https://wyobiz.wyo.gov/UCC/Search.aspx",
  PR: "https://prucc.estado.pr.gov/",
  GU: "https://dlm.guam.gov/recorders-office/",
  VI: "https://ltg.gov.vi/division-of-corporations-and-trademarks/",
  AS: "https://www.americansamoa.gov/",
  MP: "https://commerce.gov.mp/",
} as const;

export type StateCode = keyof typeof STATE_SEARCH_URLS;

export const STATE_CODES = Object.keys(STATE_SEARCH_URLS) as StateCode[];

export function isStateCode(code: string): code is StateCode {
  return Object.hasOwn(STATE_SEARCH_URLS, code);
}
