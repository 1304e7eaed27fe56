# Reference figures for tests/fixtures/sdcmicro-localsupp.json: sdcMicro localSupp on its testdata.
# Run: Rscript scripts/sdcmicro_localsupp.R > tests/fixtures/sdcmicro-localsupp-raw.json (needs ../shared/data).
suppressMessages(library(sdcMicro))
d <- read.csv("../shared/data/sdcmicro/testdata.csv")
keys <- c("urbrur","water","sex","age","relat")
res <- list()
for (thr in c(0.005, 0.01, 0.03)) {
  sdc <- createSdcObj(d, keyVars=keys, weightVar="sampling_weight")
  rk0 <- get.sdcMicroObj(sdc, type="risk")$individual[,1]
  s2 <- localSupp(sdc, threshold=thr, keyVar="age")
  m <- get.sdcMicroObj(s2, type="manipKeyVars")
  rk1 <- get.sdcMicroObj(s2, type="risk")$individual[,1]
  res[[as.character(thr)]] <- list(threshold=thr, above_before=sum(rk0>thr),
    suppressed_rows=which(is.na(m$age)), global_risk_after=mean(rk1), er_after=sum(rk1),
    above_after=sum(rk1>thr))
}
cat(jsonlite::toJSON(res, digits=NA, auto_unbox=TRUE))
