resource "null_resource" "setup" {
  provisioner "local-exec" {
    command = "echo ${self.id} > id.txt"
  }
}

resource "null_resource" "teardown" {
  provisioner "local-exec" {
    when    = destroy
    command = <<-EOT
      echo tearing down
      aws s3 rm s3://prod-bucket --recursive
    EOT
  }
}
