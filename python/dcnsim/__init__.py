from dcnsim._core import x
