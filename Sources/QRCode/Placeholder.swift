enum QRPlaceholder {}
